"""Receipts: what each action of a turn really did, written by code from the call record.

The model's prose can say anything; these lines cannot, because they come from the
record of each call (its tool, its arguments, its outcome), in the user's language.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import urlsplit

from bot.core.events import Receipt, ReceiptOutcome
from bot.core.honesty.actions import ActionKind, kind_of_tool
from bot.core.honesty.verify import CallRecord, CallStatus

_MAX_TARGET = 60
_MAX_ERROR = 120

# tool -> (Spanish, English) name of the action; other tools show their own name.
_ACTIONS: dict[str, tuple[str, str]] = {
    "notes_append": ("Añadir a la nota", "Add to note"),
    "notes_write": ("Escribir la nota", "Write note"),
    "notes_delete": ("Borrar la nota", "Delete note"),
    "remember": ("Guardar en memoria", "Remember"),
    "forget": ("Olvidar de la memoria", "Forget from memory"),
    "set_reminder": ("Recordatorio", "Reminder"),
    "cancel_reminder": ("Cancelar el recordatorio", "Cancel reminder"),
    "send_email": ("Enviar correo a", "Send email to"),
    "reply_email": ("Responder el correo", "Reply to email"),
    "mark_email_read": ("Marcar correo como leído", "Mark email read"),
    "create_event": ("Crear evento", "Create event"),
    "update_event": ("Cambiar evento", "Change event"),
    "delete_event": ("Borrar evento", "Delete event"),
    "create_task": ("Crear tarea", "Create task"),
    "complete_task": ("Completar tarea", "Complete task"),
    "delete_task": ("Borrar tarea", "Delete task"),
    "web_fetch": ("Abrir la página", "Open page"),
}
_BY_KIND: dict[ActionKind, tuple[str, str]] = {
    ActionKind.STORE: ("Guardar", "Save"),
    ActionKind.REMOVE: ("Borrar", "Delete"),
    ActionKind.SEND: ("Enviar", "Send"),
    ActionKind.REMIND: ("Recordatorio", "Reminder"),
    ActionKind.FETCH: ("Consultar", "Request"),
}
# Arguments that name what the action works on, most telling first.
_TARGET_KEYS = ("path", "to", "recipient", "title", "summary", "reminder_id", "event_id", "task_id",
                "uid", "message_id", "item", "url", "text", "fact", "name", "query")
_OUTCOMES: dict[CallStatus, tuple[ReceiptOutcome, str, str]] = {
    CallStatus.OK: (ReceiptOutcome.DONE, "hecho", "done"),
    CallStatus.ERROR: (ReceiptOutcome.FAILED, "falló", "failed"),
    CallStatus.INVALID_ARGUMENTS: (ReceiptOutcome.FAILED, "no se hizo (argumentos no válidos)",
                                   "not done (invalid arguments)"),
    CallStatus.UNKNOWN_TOOL: (ReceiptOutcome.FAILED, "no se hizo (herramienta desconocida)",
                              "not done (unknown tool)"),
    CallStatus.DENIED: (ReceiptOutcome.DENIED, "denegado, no se hizo", "denied, not done"),
    CallStatus.EXPIRED: (ReceiptOutcome.EXPIRED, "sin respuesta a tiempo, no se hizo",
                         "no answer in time, not done"),
    CallStatus.CANCELLED: (ReceiptOutcome.CANCELLED, "cancelado, no se hizo", "cancelled, not done"),
}


def receipts_for(calls: Sequence[CallRecord], lang: str, *, action_asked: bool = False) -> tuple[Receipt, ...]:
    """One receipt per action with side effects (the last attempt at each), in `lang`.

    With `action_asked` and no action done, a last receipt says nothing was changed.
    """
    last: dict[tuple[str, str], CallRecord] = {}
    for call in calls:
        if call.has_side_effect:
            last.pop((call.name, call.arguments), None)  # keep the order of the last attempt
            last[(call.name, call.arguments)] = call
    receipts = [_receipt(call, lang) for call in last.values()]
    if action_asked and not any(c.status is CallStatus.OK and c.is_write for c in last.values()):
        receipts.append(nothing_changed(lang))
    return tuple(receipts)


def nothing_changed(lang: str) -> Receipt:
    return Receipt(ReceiptOutcome.NOTHING_CHANGED,
                   "No se ha cambiado nada." if lang == "es" else "Nothing was changed.")


def _receipt(call: CallRecord, lang: str) -> Receipt:
    es = lang == "es"
    target = "" if call.erases else _target(call)
    if call.name in _ACTIONS:
        action = _ACTIONS[call.name][0 if es else 1]
    else:  # a tool this table does not know (a plugin, an MCP server): its kind and its name
        action = _BY_KIND[kind_of_tool(call.name)][0 if es else 1]
        target = f"{target} ({call.name})".strip()
    outcome, said_es, said_en = _OUTCOMES[call.status]
    said = said_es if es else said_en
    if call.status is CallStatus.ERROR and call.error:
        said += f" ({_clip(_one_line(call.error), _MAX_ERROR)})"
    what = f"{action} {target}".strip()
    return Receipt(outcome, f"{what}: {said}")


def _target(call: CallRecord) -> str:
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    for key in _TARGET_KEYS:
        value = args.get(key)
        if value in (None, "", []):
            continue
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        text = _one_line(str(value))
        if key == "url":  # the host says where; the rest may carry data nobody should re-read
            text = urlsplit(text).hostname or ""
        if key in ("text", "fact", "query"):
            return f"“{_clip(text, _MAX_TARGET)}”"
        return _clip(text, _MAX_TARGET)
    return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
