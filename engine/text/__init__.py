"""The text layer: documents in, the text that offsets index out."""
