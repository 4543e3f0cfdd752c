"""OpenAI-compatible `/chat/completions`: OpenAI, vLLM, Ollama's /v1, llama.cpp server, LM Studio, ..."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from core.models.base import Message, SamplingParams, Usage
from core.models.config import DEFAULT_BASE_URLS
from core.models.httpbase import (
    Failure,
    HttpProvider,
    ReplyMeta,
    malformed,
    need_dict,
    opt_int,
    opt_str,
    parse_json_event,
    sse_events,
)
from core.models.think import ReplyAssembler

# Sent under these names when set; everything else in SamplingParams has no OpenAI equivalent.
# `max_tokens` (not max_completion_tokens) because every compatible server understands it.
_PARAMS = ("temperature", "top_p", "max_tokens", "seed", "stop", "reasoning_effort")


class OpenAIProvider(HttpProvider):
    kind = "openai"
    path = "/chat/completions"  # the base URL carries the /v1, as in the OpenAI SDK

    def build_payload(self, messages: list[Message], params: SamplingParams, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [m.model_dump() for m in messages]}
        for name in _PARAMS:
            value = getattr(params, name)
            if value is not None:
                body[name] = value
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def headers(self) -> dict[str, str]:
        key = self.endpoint.key()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def missing_key_message(self) -> str | None:
        if not self.endpoint.has_key and self.base_url == DEFAULT_BASE_URLS["openai"]:
            return "OPENAI_API_KEY is not set (or set OPENAI_BASE_URL for a local OpenAI-compatible server)"
        return None

    def parse_body(self, data: Any, asm: ReplyAssembler) -> ReplyMeta:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise malformed(_no_choices(data))
        choice = need_dict(choices[0], "choices[0]")
        message = need_dict(choice.get("message"), "choices[0].message")
        reasoning = opt_str(message, "reasoning_content") or opt_str(message, "reasoning")
        if reasoning:
            asm.reasoning(reasoning)
        asm.content(opt_str(message, "content") or "")
        return ReplyMeta(opt_str(choice, "finish_reason"), opt_str(data, "model"), _usage(data.get("usage")))

    async def parse_stream(self, lines: AsyncIterator[list[str]], asm: ReplyAssembler) -> ReplyMeta:
        meta = ReplyMeta()
        done = False
        async for events in sse_events(lines):
            for _event, data in events:
                if data.strip() == "[DONE]":
                    done = True
                    break
                self._event(parse_json_event(data), asm, meta)
            if done:
                break
        if not done and meta.finish_reason is None:
            # A clean EOF before [DONE] and before any finish_reason: the reply was cut off.
            raise Failure("connection", "stream ended before the reply was complete", retryable=True)
        return meta

    @staticmethod
    def _event(obj: dict[str, Any], asm: ReplyAssembler, meta: ReplyMeta) -> None:
        """One streamed chunk (`chat.completion.chunk`)."""
        if "error" in obj:
            raise Failure("http_5xx", f"error in stream: {_message(obj['error'])}", retryable=True)
        meta.model = opt_str(obj, "model") or meta.model
        if obj.get("usage"):
            meta.usage = _usage(obj["usage"])
        for choice in obj.get("choices") or []:
            choice = need_dict(choice, "choices[]")
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            delta = need_dict(delta, "choices[].delta")
            reasoning = opt_str(delta, "reasoning_content") or opt_str(delta, "reasoning")
            if reasoning:
                asm.reasoning(reasoning)
            content = opt_str(delta, "content")
            if content:
                asm.content(content)
            meta.finish_reason = opt_str(choice, "finish_reason") or meta.finish_reason


def _usage(raw: Any) -> Usage:
    details = raw.get("completion_tokens_details") if isinstance(raw, dict) else None
    return Usage(
        prompt_tokens=opt_int(raw, "prompt_tokens"),
        completion_tokens=opt_int(raw, "completion_tokens"),
        reasoning_tokens=opt_int(details, "reasoning_tokens"),
    )


def _message(err: Any) -> str:
    if isinstance(err, dict):
        err = err.get("message", err)
    return " ".join(str(err).split())[:300]


def _no_choices(data: dict[str, Any]) -> str:
    if "error" in data:  # some proxies answer 200 with an error object
        return f"response has no choices; error: {_message(data['error'])}"
    return "response has no 'choices'"
