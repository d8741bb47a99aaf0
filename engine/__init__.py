"""Agent Review Loop engine: pure Python, no Qt.

Layers: ``encoding`` (WHATWG byte decoding), ``documents`` (reading document files),
``html_text`` (browser-exact body textContent), ``utf16`` (offset units),
``anchoring`` (locate and re-anchor), ``scoring`` (verdicts and the five metrics),
``cli`` (the headless ``arl`` command).
"""

__version__ = "0.1.0"
