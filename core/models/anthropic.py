"""Anthropic Messages API (`POST /v1/messages`), with extended thinking and SSE streaming."""

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

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = (
    4096  # the API requires max_tokens; with thinking the answer gets this on top of the budget
)

# Stream error types worth retrying, and the status each would have had as an HTTP error.
_RETRYABLE_STREAM_ERRORS = {
    "overloaded_error": ("http_5xx", 529),
    "api_error": ("http_5xx", 500),
    "rate_limit_error": ("http_429", 429),
}


class AnthropicProvider(HttpProvider):
    kind = "anthropic"
    path = "/v1/messages"

    def build_payload(self, messages: list[Message], params: SamplingParams, stream: bool) -> dict[str, Any]:
        # The Messages API has no system role: system messages become the top-level `system`.
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        budget = params.thinking_budget
        max_tokens = params.max_tokens or (budget + DEFAULT_MAX_TOKENS if budget else DEFAULT_MAX_TOKENS)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": [m.model_dump() for m in messages if m.role != "system"],
        }
        if system:
            body["system"] = system
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.stop is not None:
            body["stop_sequences"] = params.stop
        if budget is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        # No seed and no reasoning_effort in this API: they are not sent.
        if stream:
            body["stream"] = True
        return body

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        key = self.endpoint.key()
        if key:
            headers["x-api-key"] = key
        return headers

    def missing_key_message(self) -> str | None:
        if not self.endpoint.has_key and self.base_url == DEFAULT_BASE_URLS["anthropic"]:
            return "ANTHROPIC_API_KEY is not set"
        return None

    def parse_body(self, data: Any, asm: ReplyAssembler) -> ReplyMeta:
        content = data.get("content")
        if not isinstance(content, list):
            raise malformed("response has no 'content' list")
        for block in content:
            block = need_dict(block, "content[]")
            kind = block.get("type")
            if kind == "text":
                asm.content(opt_str(block, "text") or "")
            elif kind == "thinking":
                asm.reasoning(opt_str(block, "thinking") or "")
                asm.end_reasoning_block()
            # redacted_thinking, tool_use, ...: nothing to show
        raw = data.get("usage")
        usage = Usage(
            prompt_tokens=opt_int(raw, "input_tokens"), completion_tokens=opt_int(raw, "output_tokens")
        )
        return ReplyMeta(opt_str(data, "stop_reason"), opt_str(data, "model"), usage)

    async def parse_stream(self, lines: AsyncIterator[list[str]], asm: ReplyAssembler) -> ReplyMeta:
        meta = ReplyMeta()
        done = False
        async for events in sse_events(lines):
            for event, data in events:
                obj = parse_json_event(data)
                kind = obj.get("type") or event
                if kind == "message_start":
                    message = need_dict(obj.get("message"), "message_start.message")
                    meta.model = opt_str(message, "model")
                    usage = message.get("usage")
                    meta.usage = Usage(
                        prompt_tokens=opt_int(usage, "input_tokens"),
                        completion_tokens=opt_int(usage, "output_tokens"),
                    )
                elif kind == "content_block_start":
                    block = need_dict(obj.get("content_block"), "content_block_start.content_block")
                    if block.get("type") == "text":
                        asm.content(opt_str(block, "text") or "")
                    elif block.get("type") == "thinking":
                        asm.reasoning(opt_str(block, "thinking") or "")
                elif kind == "content_block_delta":
                    delta = need_dict(obj.get("delta"), "content_block_delta.delta")
                    if delta.get("type") == "text_delta":
                        asm.content(opt_str(delta, "text") or "")
                    elif delta.get("type") == "thinking_delta":
                        asm.reasoning(opt_str(delta, "thinking") or "")
                elif kind == "content_block_stop":
                    asm.end_reasoning_block()
                elif kind == "message_delta":
                    delta = obj.get("delta") or {}
                    meta.finish_reason = (
                        opt_str(need_dict(delta, "message_delta.delta"), "stop_reason") or meta.finish_reason
                    )
                    usage = obj.get("usage")
                    # output_tokens here is cumulative for the whole message
                    meta.usage = Usage(
                        prompt_tokens=_first(opt_int(usage, "input_tokens"), meta.usage.prompt_tokens),
                        completion_tokens=_first(opt_int(usage, "output_tokens"), meta.usage.completion_tokens),
                    )
                elif kind == "message_stop":
                    done = True
                    break
                elif kind == "error":
                    raise _stream_error(obj.get("error"))
            if done:
                break
        if not done and meta.finish_reason is None:
            raise Failure("connection", "stream ended before message_stop", retryable=True)
        return meta


def _stream_error(err: Any) -> Failure:
    err = err if isinstance(err, dict) else {}
    etype = str(err.get("type", "error"))
    message = " ".join(str(err.get("message", "")).split())[:300]
    kind, status = _RETRYABLE_STREAM_ERRORS.get(etype, ("http_4xx", None))
    return Failure(kind, f"{etype} in stream: {message}", status=status, retryable=kind != "http_4xx")


def _first(a: int | None, b: int | None) -> int | None:
    return a if a is not None else b
