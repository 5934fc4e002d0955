"""The baseline for bench/webhook.py: a Flask endpoint that reads the body and does nothing else."""

from flask import Flask, request

app = Flask("bare")


@app.post("/webhook")
def webhook():
    request.get_data()
    return {"status": 202}, 202
