"""The Suites tab (``app.suites.view``) and its charts (``app.suites.charts``)."""

from app.suites.view import SuitesView, example_suite_path

__all__ = ["SuitesView", "example_suite_path"]
