"""The one shape of every plain answer of the receiver: {"status", "message"}."""

from __future__ import annotations

from flask import Response, current_app, jsonify


def answer(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"status": status, "message": message}), status


def wired(name: str):
    """What create_app wired for this app: settings, redis, store, queue."""
    return current_app.extensions["witness"][name]
