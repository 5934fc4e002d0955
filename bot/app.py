"""The receiver: `create_app()` wires settings, Redis, the record store and the blueprints. Nothing else."""

from __future__ import annotations

from flask import Flask, Response
from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

from appcore.settings import Settings
from bot.answers import answer
from bot.registration import registration
from bot.views import views
from bot.webhook import webhook
from witness_gate.records.store import Store

MAX_BODY = 25 * 1024 * 1024  # GitHub never sends more


def create_app(settings: Settings | None = None, *, redis: Redis | None = None, store: Store | None = None) -> Flask:
    settings = settings or Settings.from_env()
    redis = redis or Redis.from_url(settings.redis_url)
    store = store or Store(settings.database_url)
    store.create_schema()
    queue = Queue(settings.queue, connection=redis, serializer=JSONSerializer)

    app = Flask("witness_gate")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions["witness"] = {"settings": settings, "redis": redis, "store": store, "queue": queue}
    app.register_blueprint(webhook)
    app.register_blueprint(views)
    app.register_blueprint(registration)  # /setup answers 404 unless the operator asked to register
    for status, message in ((413, f"the body is over {MAX_BODY} bytes"), (404, "no such record or route"),
                            (405, "method not allowed here")):
        app.register_error_handler(status, _handler(status, message))
    return app


def _handler(status: int, message: str):
    def handle(_exc) -> tuple[Response, int]:
        return answer(status, message)

    return handle
