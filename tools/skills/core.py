"""Always-on tools: what time it is where the user is, and where the user is."""

from __future__ import annotations

from tools.context import ToolContext, format_age
from tools.plugin import SkillPlugin
from tools.registry import Risk, tool


class CoreSkill(SkillPlugin):
    id = "core"
    description = "current date and time with weekday in the user's time zone; the user's current location"

    @tool(risk=Risk.READ, idempotent=True)
    async def current_time(self, ctx: ToolContext) -> str:
        """Current date, weekday and time in the user's time zone."""
        now = ctx.now()
        return f"{now.strftime('%A %Y-%m-%d %H:%M')} ({ctx.timezone.key}, UTC{now.strftime('%z')})"

    @tool(risk=Risk.READ, idempotent=True)
    async def current_location(self, ctx: ToolContext) -> str:
        """The user's last shared location, how old it is, and whether it is stale."""
        reading = await ctx.location()
        if reading is None:
            return "Location unknown: the user has not shared a location yet."
        loc = reading.location
        parts = [
            f"lat {loc.latitude:.5f}, lon {loc.longitude:.5f}",
            f"shared {format_age(reading.age)} ago via {loc.source.value}",
        ]
        if loc.accuracy_m is not None:
            parts.append(f"accuracy ±{loc.accuracy_m:.0f} m")
        if loc.label:
            parts.append(f"place: {loc.label}")
        if reading.live:
            parts.append("live sharing on")
        if reading.stale:
            parts.append("STALE: too old to trust, ask the user for a fresh location")
        return "; ".join(parts)
