"""Token economics: what the model calls cost, and `/stats` (today, last 7 days, last turn).

Prompt, cached and completion tokens are what the provider reported (bot/llm.py writes them
into `model_calls`); exposed vs catalog tool tokens are counted offline with o200k by the
turn (`turns`). Cost is an estimate from LLM_PRICE_* (USD per million tokens).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.config import LLMSettings
from bot.core.events import CommandMessage, OutboundMessage
from memory.db import Database

if TYPE_CHECKING:
    from bot.core.assistant import Assistant


def cost_usd(prompt: int, cached: int, completion: int, prices: LLMSettings) -> float:
    """Cached prompt tokens are billed at the cached price, the rest at the input price."""
    fresh = max(prompt - cached, 0)
    return (fresh * prices.price_input + cached * prices.price_cached_input
            + completion * prices.price_output) / 1_000_000


@dataclass(frozen=True)
class UsageTotals:
    turns: int = 0
    model_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    exposed_tool_tokens: int = 0
    catalog_tool_tokens: int = 0

    @property
    def cached_share(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def tool_share(self) -> float:
        return self.exposed_tool_tokens / self.catalog_tool_tokens if self.catalog_tool_tokens else 0.0

    def cost(self, prices: LLMSettings) -> float:
        return cost_usd(self.prompt_tokens, self.cached_tokens, self.completion_tokens, prices)


async def usage_between(db: Database, user_key: str, start: datetime, end: datetime) -> UsageTotals:
    """Totals of one user's model calls and turns in [start, end) (aware datetimes)."""
    since, until = _stamp(start), _stamp(end)
    calls = await _aggregate(db,
        "SELECT COUNT(*) AS n, COALESCE(SUM(1 - ok), 0) AS failed, COALESCE(SUM(prompt_tokens), 0) AS p,"
        " COALESCE(SUM(cached_tokens), 0) AS c, COALESCE(SUM(completion_tokens), 0) AS o"
        " FROM model_calls WHERE user_key = ? AND created_at >= ? AND created_at < ?",
        (user_key, since, until),
    )
    turns = await _aggregate(db,
        "SELECT COUNT(*) AS n, COALESCE(SUM(exposed_tool_tokens), 0) AS exposed,"
        " COALESCE(SUM(catalog_tool_tokens), 0) AS catalog"
        " FROM turns WHERE user_key = ? AND started_at >= ? AND started_at < ?",
        (user_key, since, until),
    )
    return UsageTotals(
        turns=turns["n"], model_calls=calls["n"], failed_calls=calls["failed"],
        prompt_tokens=calls["p"], cached_tokens=calls["c"], completion_tokens=calls["o"],
        exposed_tool_tokens=turns["exposed"], catalog_tool_tokens=turns["catalog"],
    )


@dataclass(frozen=True)
class TurnUsage:
    turn_id: int
    started_at: str
    skills: tuple[str, ...]
    fail_open: bool
    totals: UsageTotals


async def last_turn_usage(db: Database, user_key: str) -> TurnUsage | None:
    row = await db.fetchone(
        "SELECT id, started_at, route_json, exposed_tool_tokens, catalog_tool_tokens FROM turns"
        " WHERE user_key = ? ORDER BY id DESC LIMIT 1",
        (user_key,),
    )
    if row is None:
        return None
    calls = await _aggregate(db,
        "SELECT COUNT(*) AS n, COALESCE(SUM(1 - ok), 0) AS failed, COALESCE(SUM(prompt_tokens), 0) AS p,"
        " COALESCE(SUM(cached_tokens), 0) AS c, COALESCE(SUM(completion_tokens), 0) AS o"
        " FROM model_calls WHERE turn_id = ?",
        (row["id"],),
    )
    route: dict[str, Any] = json.loads(row["route_json"]) if row["route_json"] else {}
    totals = UsageTotals(
        turns=1, model_calls=calls["n"], failed_calls=calls["failed"], prompt_tokens=calls["p"],
        cached_tokens=calls["c"], completion_tokens=calls["o"],
        exposed_tool_tokens=row["exposed_tool_tokens"] or 0, catalog_tool_tokens=row["catalog_tool_tokens"] or 0,
    )
    return TurnUsage(row["id"], row["started_at"], tuple(route.get("skills", [])),
                     bool(route.get("fail_open", False)), totals)


async def _aggregate(db: Database, sql: str, params: tuple[Any, ...]) -> Any:
    """An aggregate query always yields one row."""
    row = await db.fetchone(sql, params)
    if row is None:
        raise RuntimeError("aggregate query returned no row")
    return row


def _stamp(moment: datetime) -> str:
    """The form model_calls/turns timestamps are written in (ISO, UTC) so text order is time order."""
    from datetime import UTC

    return moment.astimezone(UTC).isoformat()


def _block(title: str, totals: UsageTotals, prices: LLMSettings) -> list[str]:
    lines = [f"*{title}*"]
    if not totals.model_calls and not totals.turns:
        return [*lines, "nothing yet"]
    lines.append(f"turns {totals.turns} · model calls {totals.model_calls}"
                 + (f" ({totals.failed_calls} failed)" if totals.failed_calls else ""))
    lines.append(f"prompt {totals.prompt_tokens:,} tokens, cached {totals.cached_tokens:,} "
                 f"({totals.cached_share:.0%}) · completion {totals.completion_tokens:,}")
    if totals.catalog_tool_tokens:
        lines.append(f"tools sent {totals.exposed_tool_tokens:,} of {totals.catalog_tool_tokens:,} "
                     f"catalog tokens ({totals.tool_share:.0%})")
    if prices.price_input or prices.price_output or prices.price_cached_input:
        lines.append(f"estimated cost ${totals.cost(prices):.4f}")
    return lines


def render_stats(today: UsageTotals, week: UsageTotals, last: TurnUsage | None, prices: LLMSettings) -> str:
    lines = [*_block("Today", today, prices), "", *_block("Last 7 days", week, prices), ""]
    if last is None:
        lines += ["*Last turn*", "nothing yet"]
    else:
        skills = ", ".join(last.skills) or "core only"
        lines += _block(f"Last turn (#{last.turn_id})", last.totals, prices)
        lines.append(f"skills: {skills}" + (" (router failed open)" if last.fail_open else ""))
    if not (prices.price_input or prices.price_output or prices.price_cached_input):
        lines += ["", "_set LLM_PRICE_INPUT / LLM_PRICE_CACHED_INPUT / LLM_PRICE_OUTPUT for a cost estimate_"]
    return "\n".join(lines)


def install_stats(assistant: Assistant) -> None:
    """Add `/stats` to the assistant."""

    async def stats(event: CommandMessage) -> OutboundMessage:
        deps = assistant.deps
        user_key = event.chat.user_key
        now = deps.clock.now()
        local = now.astimezone(deps.settings.core.zone)
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        end = now + timedelta(seconds=1)
        today = await usage_between(deps.db, user_key, midnight, end)
        week = await usage_between(deps.db, user_key, midnight - timedelta(days=6), end)
        last = await last_turn_usage(deps.db, user_key)
        return OutboundMessage(render_stats(today, week, last, deps.settings.llm))

    assistant.add_command("stats", stats, "tokens and estimated cost: today, last 7 days, last turn")
