"""Page 1 of the setup wizard: the model, its server and the API key."""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWizardPage,
)

from app import secrets as app_secrets
from app.jobs import run_in_thread
from app.theme import muted
from app.wizard.common import start_task
from engine import vocabulary as vocab
from engine.redact import redact

PRESETS: dict[str, tuple[str, str, bool]] = {
    # key: (label, base URL, needs a key)
    "openai": ("OpenAI", "https://api.openai.com/v1", True),
    "ollama": ("Ollama (this computer)", "http://localhost:11434/v1", False),
    "lmstudio": ("LM Studio (this computer)", "http://localhost:1234/v1", False),
    "openrouter": ("OpenRouter", "https://openrouter.ai/api/v1", True),
    "custom": ("Custom OpenAI-compatible server (vLLM, llama.cpp\u2026)", "", False),
    # A script plays the agent on this computer (app.scripted_agent): no model, no key.
    "scripted": ("Try with a scripted agent (no model)", "", False),
}


CUSTOM_URL_EXAMPLE = "e.g. http://127.0.0.1:8080/v1 (the server's address, usually ending in /v1)"
# The model field's example, for each provider (the scripted agent fills in its own).
MODEL_EXAMPLES = {
    "openai": "model name, e.g. gpt-4o-mini",
    "ollama": "model name, e.g. llama3.2 (Fetch model list shows those pulled)",
    "lmstudio": "the model loaded in LM Studio (Fetch model list shows it)",
    "openrouter": "model name, e.g. openai/gpt-4o-mini",
    "custom": "the model the server serves (Fetch model list asks it)",
}
CUSTOM_WORDS = (
    "Any server that speaks the OpenAI API: type its address and the model it serves; "
    "Test connection checks both."
)


class ModelPage(QWizardPage):
    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setTitle("1. The model")
        self.setSubTitle(
            "Which AI model revises the document. Any OpenAI-compatible server "
            "works; local servers need no key."
        )
        self.preset = QComboBox()
        from app import scripted_agent

        for key, (label, _, _) in PRESETS.items():
            if key != "scripted" or scripted_agent.available():
                self.preset.addItem(label, key)
        self.url = QLineEdit()
        self.url.setPlaceholderText(CUSTOM_URL_EXAMPLE)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.lineEdit().setPlaceholderText("model name, e.g. gpt-4o-mini")
        self.fetch_btn = QPushButton("&Fetch model list")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("API key (leave empty for local servers)")
        self.key_status = QLabel()
        self.key_status.setWordWrap(True)
        self.session_only = QCheckBox("Keep the key for this session only (not saved)")
        self.session_only.setVisible(False)
        self.test_btn = QPushButton("&Test connection")
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextFormat(Qt.TextFormat.RichText)

        form = self._form = QFormLayout()
        form.addRow("&Provider:", self.preset)
        form.addRow("&Base URL:", self.url)
        row = QHBoxLayout()
        row.addWidget(self.model, 1)
        row.addWidget(self.fetch_btn)
        model_label = QLabel("&Model:")
        model_label.setBuddy(self.model)
        form.addRow(model_label, row)
        form.addRow("API &key:", self.key)
        form.addRow("", self.key_status)
        form.addRow("", self.session_only)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.test_btn, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.test_result)
        lay.addStretch(1)

        self.preset.currentIndexChanged.connect(self._preset_changed)
        self.url.textChanged.connect(self.completeChanged)
        self.model.currentTextChanged.connect(self.completeChanged)
        self.fetch_btn.clicked.connect(self.fetch_models)
        self.test_btn.clicked.connect(self.test_connection)
        self.key.editingFinished.connect(self.save_key)
        self.url.editingFinished.connect(self._url_changed)
        self.api_key: str | None = None
        self.key_source = "none"
        self._key_host = ""  # the host the looked-up key belongs to (engine.credentials)
        self._job: asyncio.Task | None = None
        self.lister: Callable[[str, str | None], Awaitable[list[str]]] = _list_models
        self.checker: Callable[[str, str, str | None], Awaitable[list[Any]]] = _check_endpoint
        self.keyring_missing = False
        # Why the last Test connection failed (None: not tested, or it passed); a changed
        # address or model makes the result unknown again.
        self.test_failed: str | None = None
        self.url.textChanged.connect(self._forget_test)
        self.model.currentTextChanged.connect(self._forget_test)

        saved = settings.preset if settings else "openai"
        i = self.preset.findData(saved)
        self.preset.setCurrentIndex(max(i, 0))
        if settings is not None and saved != "scripted":
            self.url.setText(settings.base_url)
            self.model.setEditText(settings.model)
        elif not self.scripted:
            # The scripted agent was chosen last but is not part of this build: the first
            # preset's own address, never a scripted server's.
            self._preset_changed()

    def initializePage(self) -> None:
        self._key_touched = False
        self._look_up_key()

    def _look_up_key(self) -> None:
        url = self.url.text().strip()
        run_in_thread(
            lambda: (app_secrets.choose_key(url), app_secrets.keyring_works()), self._key_found
        )

    def _url_changed(self) -> None:
        """Another server: the key found for the previous one is not sent to it."""
        if app_secrets.key_host(self.url.text()) != self._key_host:
            self._key_touched = False
            self.api_key, self.key_source, self._key_host = None, "none", ""
            self._look_up_key()

    def _key_found(self, result: tuple[Any, bool]) -> None:
        choice, works = result
        key, source = choice.key, choice.source
        if self.scripted:
            return  # the scripted agent needs no key: no key status, no keyring warning
        if getattr(self, "_key_touched", False):
            return  # the user already saved a key; its status wins
        if choice.host != app_secrets.key_host(self.url.text()):
            return  # the URL changed meanwhile; its own look-up answers
        self.api_key, self.key_source, self._key_host = key, source, choice.host
        if not works and source in ("none", "session"):
            self.keyring_missing = True
            self.session_only.setVisible(True)
            self.session_only.setChecked(True)
            self.key_status.setText(
                app_secrets.NO_KEYRING_MESSAGE
                + (" A key is kept for this session." if source == "session" else "")
            )
            return
        self.key_status.setText(
            {
                "env": "The OPENAI_API_KEY environment variable is set and will be used.",
                "keyring": f"A key for {choice.host} is saved in the system keyring "
                f"({app_secrets.backend_name()}). Type a new one to replace it.",
                "session": f"A key for {choice.host} is kept for this session only.",
                "none": f"No key saved for {choice.host or 'this server'}. Local servers "
                "(Ollama, LM Studio, llama.cpp) need none.",
            }[source]
            + (f" Note: {choice.note}." if choice.note else "")
        )

    def _preset_changed(self) -> None:
        key = self.preset.currentData()
        _, url, _ = PRESETS[key]
        if key == "scripted":
            self._use_scripted_agent()
            return
        self._show_key_rows(True)
        # The explanation and the model follow the provider: the scripted agent's words
        # and its model (or another server's test result) are not left on screen.
        self.test_result.setText(CUSTOM_WORDS if key == "custom" else "")
        self.model.lineEdit().setPlaceholderText(MODEL_EXAMPLES.get(key, MODEL_EXAMPLES["openai"]))
        if self.model.currentText() == scripted_agent_model():
            self.model.clear()
            self.model.setEditText("")
        if url:
            self.url.setText(url)
        self.url.setReadOnly(False)
        if key == "custom":
            # Another provider's address would be wrong here: start empty, with an example.
            self.url.clear()
            self.url.setPlaceholderText(CUSTOM_URL_EXAMPLE)
            self.url.setFocus()
        else:
            self.url.setPlaceholderText(CUSTOM_URL_EXAMPLE)
        self.completeChanged.emit()

    def use_run(self, manifest: dict) -> None:
        """Preselect the provider and model a run used (its bundle's ``manifest``), when
        it says: the scripted agent for a scripted run (when this build has it), else the
        preset whose address it used (Custom for another), with its address and model."""
        if manifest.get("scripted"):
            i = self.preset.findData("scripted")
            if i >= 0:
                self.preset.setCurrentIndex(i)
            return
        url = str(manifest.get("base_url") or "").strip()
        model = str(manifest.get("model") or "").strip()
        if not url:
            return
        key = next(
            (k for k, (_, u, _) in PRESETS.items() if u and u.rstrip("/") == url.rstrip("/")),
            "custom",
        )
        self.preset.setCurrentIndex(max(self.preset.findData(key), 0))
        self.url.setText(url)
        if model:
            self.model.setEditText(model)
        self._url_changed()

    def _use_scripted_agent(self) -> None:
        """Start the scripted server here (loopback) and fill in its address and model."""
        from app import scripted_agent

        try:
            url = scripted_agent.base_url()
        except (RuntimeError, OSError) as exc:
            self.test_result.setText(f"The scripted agent could not be started: {exc}")
            return
        self.url.setText(url)
        self.url.setReadOnly(True)
        self.model.setEditText(scripted_agent.MODEL)
        self.key.clear()
        self._show_key_rows(False)
        self.test_result.setText(
            "A script plays the agent on this computer: it rewrites each commented passage "
            "and reports. No model and no key; the evidence bundle says it is scripted."
        )
        self.completeChanged.emit()

    def _show_key_rows(self, shown: bool) -> None:
        """The API key, its status and the session-only choice: hidden for the scripted
        agent (it needs no key, so neither the key nor the keyring is asked about)."""
        was_hidden = not self._form.isRowVisible(self.key)
        for widget in (self.key, self.key_status):
            self._form.setRowVisible(widget, shown)
        if not shown:
            self.session_only.setVisible(False)
            self.key_status.clear()
        elif was_hidden:
            self._look_up_key()  # back from the scripted agent: this server's key status

    @property
    def scripted(self) -> bool:
        """True when the scripted agent was chosen (the bundle is marked scripted)."""
        return self.preset.currentData() == "scripted"

    def _forget_test(self) -> None:
        self.test_failed = None

    def current_key(self) -> str | None:
        """The typed key, else the key found for this URL's host (``OPENAI_API_KEY`` goes to
        any server: setting it is the user's choice). Never a key saved for another host."""
        typed = self.key.text().strip()
        if typed:
            return typed
        if self.key_source == "env" or app_secrets.key_host(self.url.text()) == self._key_host:
            return self.api_key
        return None

    # -- keyring ----------------------------------------------------------------------------

    def save_key(self) -> None:
        typed = self.key.text().strip()
        if not typed or typed == self.api_key:
            return
        url = self.url.text().strip()
        host = app_secrets.key_host(url)
        if not host:
            self.key_status.setText("Enter the server's URL first: a key is saved for one server.")
            return
        self.api_key, self._key_host = typed, host
        self._key_touched = True
        self.key_status.setText(f"Saving the key for {host} in the system keyring\u2026")
        run_in_thread(
            lambda: app_secrets.save_key(typed, url),
            lambda _: self._key_saved(),
            self._key_not_saved,
        )

    def _key_saved(self) -> None:
        self.key_source = "keyring"
        self.keyring_missing = False
        self.session_only.setVisible(False)
        self.key_status.setText(
            f"Saved for {self._key_host} in the system keyring ({app_secrets.backend_name()})."
        )

    def _key_not_saved(self, exc: BaseException) -> None:
        self.keyring_missing = True
        self.key_status.setText(app_secrets.NO_KEYRING_MESSAGE)
        self.session_only.setVisible(True)
        self.session_only.setChecked(True)

    # -- network ------------------------------------------------------------------------------

    def fetch_models(self) -> None:
        url = self.url.text().strip()
        if not url:
            self.test_result.setText("Enter the server's base URL first.")
            return
        self.fetch_btn.setEnabled(False)
        self.test_result.setText("Asking the server for its models\u2026")
        self.cancel_jobs()
        self._job = start_task(self._fetch(url, self.current_key()))

    async def _fetch(self, url: str, key: str | None) -> None:
        try:
            models = await self.lister(url, key)
        except asyncio.CancelledError:
            self.test_result.setText("")
            raise
        except Exception as exc:
            self.test_result.setText(
                f"<b>Could not list the models:</b> {html.escape(redact(str(exc)))}"
            )
            return
        finally:
            self.fetch_btn.setEnabled(True)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(current if current in models or not models else models[0])
        self.test_result.setText(
            f"The server offers {vocab.plural(len(models), 'model')}."
            if models
            else "The server lists no models; type the name."
        )

    def test_connection(self) -> None:
        url, model = self.url.text().strip(), self.model.currentText().strip()
        if not url or not model:
            self.test_result.setText("Enter the base URL and the model first.")
            return
        self.test_btn.setEnabled(False)
        self.test_result.setText("Testing: listing models, then asking for one tool call\u2026")
        self.cancel_jobs()
        self._job = start_task(self._test(url, model, self.current_key()))

    async def _test(self, url: str, model: str, key: str | None) -> None:
        try:
            checks = await self.checker(url, model, key)
        except asyncio.CancelledError:
            self.test_result.setText("")
            raise
        except Exception as exc:
            reason = redact(str(exc)).rstrip(". ")
            self.test_failed = reason
            self.test_result.setText(
                f"<b>The test failed:</b> {html.escape(reason)}.<br>&nbsp;&nbsp;&nbsp;<i>What "
                "to do: check that the server is running and the base URL (it usually ends "
                "in /v1), then test again.</i>"
            )
            return
        finally:
            self.test_btn.setEnabled(True)
        # Only a FAIL the program cannot work around warns before the run; a handled one
        # (json_object refused, usage as text...) says what the program does instead.
        failed = [c for c in checks if c.status == "FAIL" and not getattr(c, "handled", False)]
        self.test_failed = (
            "; ".join(f"{vocab.check_label(c.name)}: {c.detail.rstrip('. ')}" for c in failed)
            if failed
            else None
        )
        from engine.doctor import nothing_answered

        silent = nothing_answered(checks)
        if silent is not None:
            # Nothing answered: one line, not a FAIL and a column of "not checked".
            logging.getLogger(__name__).info("Test connection: %s", redact(silent.detail))
            self.test_result.setText(
                "<span style='color:#B24000;font-weight:600'>\u2717 Nothing answered at "
                f"this address.</span> {html.escape(vocab.server_words(redact(silent.detail)))}"
                f".<br>&nbsp;&nbsp;&nbsp;<i>What to do: {html.escape(redact(silent.fix))}, "
                "then test again.</i>"
            )
            return
        lines = []
        for c in checks:
            full = redact(c.detail)
            if vocab.server_words(full) != full:  # shortened on screen: whole in the log
                logging.getLogger(__name__).info("Test connection, %s: %s", c.name, full)
            handled = c.status == "FAIL" and getattr(c, "handled", False)
            status = "WORKED AROUND" if handled else c.status
            colour = {"PASS": "#007A5A", "FAIL": "#B24000"}.get(status, "#555")
            mark = {"PASS": "\u2713", "FAIL": "\u2717", "WORKED AROUND": "\u2713"}.get(status, "?")
            # Plain words first; the API's own name (tool_choice, json_object...) at the end.
            tech = vocab.CHECK_TECHNICAL.get(c.name)
            line = (
                f"<span style='color:{colour};font-weight:600'>{mark} {status}</span> "
                f"{html.escape(vocab.check_label(c.name))}: "
                f"{html.escape(vocab.server_words(redact(c.detail)))}"
                + (f" <span style='color:{muted()}'>[{html.escape(tech)}]</span>" if tech else "")
            )
            if c.fix:
                lead = "What the program does" if handled else "What to do"
                line += f"<br>&nbsp;&nbsp;&nbsp;<i>{lead}: {html.escape(redact(c.fix))}</i>"
            lines.append(line)
        self.test_result.setText("<br>".join(lines))

    def cancel_jobs(self) -> None:
        if self._job is not None and not self._job.done():
            self._job.cancel()
        self._job = None

    # -- wizard -------------------------------------------------------------------------------

    def isComplete(self) -> bool:
        url = self.url.text().strip()
        return url.startswith(("http://", "https://")) and bool(self.model.currentText().strip())

    def validatePage(self) -> bool:
        if self.settings is not None:
            self.settings.preset = self.preset.currentData()
            if not self.scripted:
                # The scripted server's address lasts as long as this program: it is never
                # kept as the user's address (the next start starts a new server).
                self.settings.base_url = self.url.text().strip()
                self.settings.model = self.model.currentText().strip()
        typed = self.key.text().strip()
        if typed:
            if self.keyring_missing and self.session_only.isChecked():
                self.api_key = typed
                app_secrets.keep_for_session(typed, self.url.text().strip())
            else:
                self.save_key()  # in a worker thread; a failure offers session-only
        return True

    def config(self):
        from engine.agent.config import AgentConfig

        return AgentConfig(
            base_url=self.url.text().strip(),
            model=self.model.currentText().strip(),
            api_key=self.current_key(),
        )


def scripted_agent_model() -> str:
    """The scripted agent's model name (``app.scripted_agent.MODEL``)."""
    from app import scripted_agent

    return scripted_agent.MODEL


async def _list_models(url: str, key: str | None) -> list[str]:
    from engine.agent.client import ModelClient
    from engine.agent.config import AgentConfig

    cfg = AgentConfig(base_url=url, model="", api_key=key, request_timeout=20, max_retries=1)
    async with ModelClient(cfg) as client:
        return await client.list_models()


async def _check_endpoint(url: str, model: str, key: str | None) -> list[Any]:
    from engine.doctor import GUI_KEY_FIX, check_endpoint

    # A refused key: the fix names this page's key box, not the command line's keyring
    # or OPENAI_API_KEY.
    return await check_endpoint(url, model, key, key_fix=GUI_KEY_FIX)
