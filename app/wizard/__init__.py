"""The setup wizard: model and key, document, comments, run settings. Start the run.

One module per page (``model_page``, ``document_page``, ``comments_page``, ``run_page``)
and the wizard that strings them together (``setup``).

Pages are tested through ``isComplete()``, ``validatePage()`` and ``next()``; network work
(model list, connection test, authoring from a brief) runs as asyncio tasks on the qasync
loop and can be replaced by fakes (``ModelPage.lister``/``checker``,
``DocumentPage.author``). Keyring calls run in a worker thread.

Comments are made by selecting words in the rendered v1: the anchor's quote, prefix, suffix
and UTF-16 offsets come from the page itself (``DocumentView.anchorSelected``).
"""

from app.wizard.comments_page import CommentsPage
from app.wizard.document_page import DocumentPage
from app.wizard.model_page import PRESETS, ModelPage
from app.wizard.run_page import RunSettingsPage
from app.wizard.setup import SetupWizard

__all__ = [
    "PRESETS",
    "CommentsPage",
    "DocumentPage",
    "ModelPage",
    "RunSettingsPage",
    "SetupWizard",
]
