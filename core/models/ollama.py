"""Ollama's native `POST /api/chat`: NDJSON streaming, `message.thinking` for reasoning models."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from core.models.base import Message, SamplingParams, Usage
from core.models.httpbase import (
    Failure,
    HttpProvider,
    ReplyMeta,
    need_dict,
    opt_int,
    opt_str,
    parse_json_event,
)
from core.models.think import ReplyAssembler

# SamplingParams name -> Ollama option name
_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "num_predict",
    "seed": "seed",
    "stop": "stop",
}


class OllamaProvider(HttpProvider):
    kind = "ollama"
    path = "/api/chat"
    stream_content_types = ("application/x-ndjson", "text/event-stream", "application/json")

    def build_payload(self, messages: list[Message], params: SamplingParams, stream: bool) -> dict[str, Any]:
        options = {
            opt: getattr(params, name) for name, opt in _OPTIONS.items() if getattr(params, name) is not None
        }
        # Ollama streams unless told otherwise, so "stream" is always sent.
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "stream": stream,
            "options": options,
        }
        if params.reasoning_effort is not None or params.thinking_budget is not None:
            # Ollama has no budget or effort for most models, only thinking on/off;
            # reasoning_effort "none" is the way to turn it off for models that think by default.
            body["think"] = params.wants_reasoning()
        return body

    def parse_body(self, data: Any, asm: ReplyAssembler) -> ReplyMeta:
        if "error" in data and "message" not in data:
            raise Failure("http_5xx", f"server error: {_one_line(data['error'])}", retryable=True)
        return self._chunk(data, asm, ReplyMeta())

    def _chunk(self, obj: dict[str, Any], asm: ReplyAssembler, meta: ReplyMeta) -> ReplyMeta:
        message = need_dict(obj.get("message"), "message")
        thinking = opt_str(message, "thinking")
        if thinking:
            asm.reasoning(thinking)
        asm.content(opt_str(message, "content") or "")
        meta.model = opt_str(obj, "model") or meta.model
        if obj.get("done"):
            meta.finish_reason = opt_str(obj, "done_reason") or "stop"
            meta.usage = Usage(
                prompt_tokens=opt_int(obj, "prompt_eval_count"), completion_tokens=opt_int(obj, "eval_count")
            )
        return meta

    async def parse_stream(self, lines: AsyncIterator[list[str]], asm: ReplyAssembler) -> ReplyMeta:
        meta = ReplyMeta()
        done = False
        async for batch in lines:
            for line in batch:
                if not line.strip():
                    continue
                obj = parse_json_event(line)
                if "error" in obj:
                    raise Failure("http_5xx", f"error in stream: {_one_line(obj['error'])}", retryable=True)
                self._chunk(obj, asm, meta)
                if obj.get("done"):
                    done = True
                    break
            if done:
                break
        if not done:
            raise Failure("connection", "stream ended before done:true", retryable=True)
        return meta


def _one_line(value: Any) -> str:
    return " ".join(str(value).split())[:300]
