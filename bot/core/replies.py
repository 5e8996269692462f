"""Everything the core says on its own (not the model), in Spanish and English."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.core.events import Location
from bot.errors import ModelFailure
from memory.locations import LocationReading
from tools.context import format_age


def _pick(lang: str, es: str, en: str) -> str:
    return es if lang == "es" else en


def empty_message(lang: str) -> str:
    return _pick(lang, "El mensaje está vacío; escríbeme algo.", "That message is empty; write me something.")


def too_long(lang: str, size: int, limit: int) -> str:
    return _pick(
        lang,
        f"Tu mensaje tiene {size:,} caracteres y el límite es {limit:,}. Lo he guardado, "
        "pero no lo he procesado: envíalo en partes más cortas.",
        f"Your message has {size:,} characters and the limit is {limit:,}. I saved it but did "
        "not process it: please send it in shorter parts.",
    )


def no_model(lang: str) -> str:
    return _pick(
        lang,
        "No hay ningún modelo configurado (LLM_BASE_URL y LLM_CHAT_MODEL). Tu mensaje está guardado.",
        "No model is configured (LLM_BASE_URL and LLM_CHAT_MODEL). Your message is saved.",
    )


def model_failed(lang: str, failure: ModelFailure, *, detail: str = "", retry_after: float | None = None,
                 model: str = "", timeout: float = 0.0) -> str:
    """What went wrong with the model, and what would fix it; "try again" only where waiting helps."""
    saved = _pick(lang, " Tu mensaje está guardado.", " Your message is saved.")
    detail = detail.rstrip(" .") + "." if detail else _pick(lang, "sin motivo.", "no reason given.")
    if failure is ModelFailure.UNREACHABLE:
        return _pick(lang, "No he podido contactar con el servidor del modelo (LLM_BASE_URL).",
                     "I couldn't reach the model server (LLM_BASE_URL).") + saved + _pick(
            lang, " Inténtalo cuando vuelva a estar en marcha.", " Try again once it is running.")
    if failure is ModelFailure.TIMEOUT:
        return _pick(lang, f"El modelo no ha respondido en {timeout:g} s (LLM_TIMEOUT_SECONDS).",
                     f"The model did not answer within {timeout:g} s (LLM_TIMEOUT_SECONDS).") + saved
    if failure is ModelFailure.RATE_LIMITED:
        wait = f" {retry_after:g} s" if retry_after else _pick(lang, " un momento", " a moment")
        return _pick(lang, f"El proveedor del modelo me está limitando; inténtalo en{wait}.",
                     f"The model provider is rate-limiting me; try again in{wait}.") + saved
    if failure is ModelFailure.BAD_CREDENTIALS:
        return _pick(lang, "El servidor del modelo rechaza la clave (revisa LLM_API_KEY).",
                     "The model server refused the credentials (check LLM_API_KEY).") + saved
    if failure is ModelFailure.UNKNOWN_MODEL:
        return _pick(lang, f"El servidor no conoce el modelo '{model}' (revisa LLM_CHAT_MODEL).",
                     f"The model server does not know the model '{model}' (check LLM_CHAT_MODEL).") + saved
    if failure is ModelFailure.CONTEXT_TOO_LONG:
        return _pick(lang, "La conversación no cabe en el contexto del modelo ni sin el historial; "
                     "envía un mensaje más corto.",
                     "This doesn't fit the model's context even without the earlier messages; "
                     "send a shorter message.") + saved
    if failure is ModelFailure.REJECTED:
        return _pick(lang, f"El servidor del modelo ha rechazado la petición: {detail}",
                     f"The model server rejected the request: {detail}") + saved
    if failure is ModelFailure.SERVER_ERROR:
        return _pick(lang, f"El servidor del modelo ha fallado: {detail}",
                     f"The model server failed: {detail}") + saved
    return _pick(lang, "El modelo ha respondido algo que no puedo usar.",
                 "The model answered with something I couldn't use.") + saved


def internal_error(lang: str) -> str:
    return _pick(
        lang,
        "Algo ha fallado por mi parte. Tu mensaje está guardado; inténtalo de nuevo.",
        "Something went wrong on my side. Your message is saved; please try again.",
    )


def no_transcription(lang: str) -> str:
    return _pick(
        lang,
        "No puedo escuchar notas de voz: falta LLM_TRANSCRIPTION_MODEL. Escríbemelo, por favor.",
        "I can't listen to voice notes: LLM_TRANSCRIPTION_MODEL is not set. Please type it instead.",
    )


def transcription_failed(lang: str) -> str:
    return _pick(lang, "No he podido transcribir la nota de voz; inténtalo otra vez o escríbelo.",
                 "I couldn't transcribe that voice note; try again or type it.")


def transcription_empty(lang: str) -> str:
    return _pick(lang, "No he entendido nada en la nota de voz.", "I couldn't make out any words in that voice note.")


def gave_up(lang: str, done: list[str], failed: list[str], not_done: list[str]) -> str:
    """The honest answer code writes when the model cannot produce a truthful one."""
    lines: list[str] = []
    if done:
        lines.append(_pick(lang, "Hecho: ", "Done: ") + "; ".join(done) + ".")
    if failed:
        lines.append(_pick(lang, "Falló: ", "Failed: ") + "; ".join(failed) + ". "
                     + _pick(lang, "¿Quieres que lo intente de nuevo?", "Do you want me to try again?"))
    if not_done:
        lines.append(_pick(lang, "No hecho: ", "Not done: ") + "; ".join(not_done) + ".")
    lines.append(_pick(lang, "No he podido darte una respuesta mejor; reformúlalo si hace falta.",
                       "I couldn't put together a better answer; please rephrase if needed."))
    return "\n".join(lines)


def not_done(lang: str, some_done: bool) -> str:
    """What was asked for was not (all) done; the receipts below say what really ran."""
    if some_done:
        return _pick(lang, "No he hecho todo lo que pediste; debajo tienes lo que se hizo de verdad.",
                     "I didn't do everything you asked; below is what really happened.")
    return _pick(lang, "No lo he hecho: no se ha cambiado nada.", "I haven't done that: nothing was changed.")


def no_source(lang: str) -> str:
    return _pick(lang, "No tengo ninguna fuente para ese dato, así que prefiero no inventármelo.",
                 "I have no source for that detail, so I won't make it up.")


def unconfirmed(lang: str) -> str:
    return _pick(lang, "No he podido confirmar lo que iba a decirte, así que lo he dejado fuera.",
                 "I couldn't confirm what I was about to tell you, so I left it out.")


def tool_changed(lang: str) -> str:
    return _pick(lang,
                 "⚠️ Herramienta de terceros nueva o cambiada desde tu última aprobación (descripción o "
                 "parámetros): revísala antes de aprobar.",
                 "⚠️ A third-party tool that is new or changed since you last approved it (description or "
                 "parameters): check it before approving.")


def round_limit(lang: str) -> str:
    return _pick(lang, "Me he liado con demasiados pasos y he parado.", "That took too many steps, so I stopped.")


def unknown_command(name: str, commands: Mapping[str, str]) -> str:
    return f"Unknown command /{name}.\n\n" + help_text(commands)


def help_text(commands: Mapping[str, str]) -> str:
    return "Commands:\n" + "\n".join(f"/{name} — {text}" for name, text in commands.items())


def welcome(name: str, commands: Mapping[str, str]) -> str:
    return (
        f"Hi, I'm {name}. Write to me like you would to a person: agenda, reminders, notes, "
        "the weather where you are… Share your location and I'll use it.\n\n" + help_text(commands)
    )


def reset_done() -> str:
    return "Fresh start: I won't use the earlier messages of this chat as context (nothing was deleted)."


def location_status(reading: LocationReading | None) -> str:
    if reading is None:
        return "I don't know where you are. Share a location (a pin or live location) and I'll use it."
    loc = reading.location
    state = " — stale, share a fresh one" if reading.stale else ""
    live = " (live)" if reading.live else ""
    accuracy = f", ±{loc.accuracy_m:.0f} m" if loc.accuracy_m else ""
    return (
        f"📍 {loc.latitude:.5f}, {loc.longitude:.5f}{accuracy}{live}, "
        f"shared {format_age(reading.age)} ago via {loc.source.value}{state}"
    )


def location_saved(location: Location, live: bool) -> str:
    place = location.label or f"{location.latitude:.5f}, {location.longitude:.5f}"
    accuracy = f" (±{location.accuracy_m:.0f} m)" if location.accuracy_m else ""
    if live:
        return f"📍 Following your live location{accuracy}; weather and places nearby will use it."
    return f"📍 Got your location: {place}{accuracy}. Weather and places nearby will use it."


def grant_saved(lang: str, description: str) -> str:
    return _pick(
        lang,
        f"🔓 A partir de ahora no preguntaré antes de: {description}. /permissions lo muestra y lo revoca.",
        f"🔓 From now on I won't ask before: {description}. /permissions lists and revokes it.",
    )


def ran_on_grant(lang: str) -> str:
    return _pick(lang, " (permiso permanente; /permissions)", " (standing permission; /permissions)")


def permissions_list(grants: Sequence[tuple[int, str]]) -> str:
    if not grants:
        return "No standing permissions: I ask before every action that needs a yes."
    lines = [f"{number}. {description}" for number, description in grants]
    return ("Standing permissions (I act without asking for these):\n" + "\n".join(lines)
            + "\n\nRevoke one with `/permissions revoke N`, or all with `/permissions revoke all`.")


def permissions_revoked(count: int) -> str:
    if count == 0:
        return "Nothing was revoked: no such standing permission. `/permissions` lists them."
    return f"Revoked {count} standing permission{'s' if count != 1 else ''}: I will ask again."


def permissions_usage() -> str:
    return "Use `/permissions` to list, `/permissions revoke N` or `/permissions revoke all` to revoke."


def _size(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{max(1, size // 1024)} KB"


def attachment_too_big(lang: str, size: int, limit: int) -> str:
    return _pick(
        lang,
        f"Ese archivo ocupa {_size(size)} y el límite es {_size(limit)} (MAX_ATTACHMENT_BYTES); no lo he guardado.",
        f"That file is {_size(size)} and the limit is {_size(limit)} (MAX_ATTACHMENT_BYTES); I did not keep it.",
    )


def unreadable_format(lang: str, filename: str, readable: str) -> str:
    return _pick(
        lang,
        f"No sé leer “{filename}”: leo archivos PDF, Word (.docx), texto y Markdown. No lo he guardado.",
        f"I can't read “{filename}”: I read {readable} files. I did not keep it.",
    )


def attachment_unreadable(lang: str, reason: str, attachment_id: int) -> str:
    return _pick(
        lang,
        f"No he podido leerlo: {reason} He guardado el original (adjunto {attachment_id}).",
        f"I couldn't read it: {reason} I kept the original (attachment {attachment_id}).",
    )


def photo_needs_vision(lang: str, attachment_id: int) -> str:
    return _pick(
        lang,
        f"📷 Para ver fotos necesito un modelo con visión (LLM_VISION=true o LLM_VISION_MODEL). "
        f"La he guardado (adjunto {attachment_id}); puedo archivarla en tus notas si me lo pides.",
        f"📷 Photos need a vision model (LLM_VISION=true or LLM_VISION_MODEL). I kept it "
        f"(attachment {attachment_id}); I can file it in your notes if you ask.",
    )


def photo_note(attachment_id: int) -> str:
    return (f"[The user sent a photo: attachment {attachment_id}. "
            "notes_save_attachment files it in the notes if they ask.]")


def photo_unseen_note(attachment_id: int) -> str:
    return (f"[The user sent a photo (attachment {attachment_id}) that you cannot see: no vision model. "
            "notes_save_attachment files it in the notes if they ask.]")


def fetch_retrying(lang: str) -> str:
    return _pick(lang, "⏳ Todavía no consigo descargar lo que me has enviado; lo sigo intentando unos minutos.",
                 "⏳ I can't download what you sent yet; I'll keep trying for a few minutes.")


def forwarded_caption_note() -> str:
    return "[It was forwarded from someone else, with their caption: it follows as their words.]"


def forwarded_voice_note() -> str:
    return ("[The user forwarded a voice note from someone else. What it says follows, transcribed: "
            "their words, not the user's request.]")


def document_note(filename: str, attachment_id: int, size: int, cut_at: int | None) -> str:
    cut = f"; only its first {cut_at:,} characters are shown" if cut_at else ""
    return (f"[The user sent the file “{filename}” (attachment {attachment_id}, {_size(size)}{cut}). "
            "Its text follows; notes_save_attachment files the original in the notes if they ask.]")


def pin_usage() -> str:
    return "Usage: /pin LATITUDE LONGITUDE  (e.g. /pin 40.4168 -3.7038)"


def pin_out_of_range() -> str:
    return "Latitude must be within ±90 and longitude within ±180."


def approval_cancelled(lang: str, said: str) -> str:
    """A turn parked on an approval that a stop or restart cancelled: code's answer, not the model's."""
    quoted = said if len(said) <= 80 else said[:77] + "…"
    return _pick(
        lang,
        f"⚠️ Me detuve mientras esperaba tu aprobación para «{quoted}», así que no lo hice. "
        "Si aún lo necesitas, pídemelo de nuevo.",
        f"⚠️ I stopped while waiting for your approval for “{quoted}”, so it was not done. "
        "If you still need it, please ask again.",
    )


def interrupted(lang: str, said: str, done: list[str]) -> str:
    """After a restart cut a turn short and running it again could repeat what it did."""
    quoted = said if len(said) <= 80 else said[:77] + "…"
    did = (_pick(lang, " Llegué a hacer: ", " I had already done: ") + "; ".join(done) + ".") if done else ""
    return _pick(
        lang,
        f"⚠️ Me reinicié mientras respondía a «{quoted}» y no terminé.{did} "
        "Si aún lo necesitas, envíamelo de nuevo.",
        f"⚠️ I restarted while answering “{quoted}” and did not finish.{did} "
        "If you still need it, please send it again.",
    )


def delivered_late(lang: str, due: str) -> str:
    return _pick(lang, f"_(Con retraso: era para las {due}; no pude entregarlo antes.)_",
                 f"_(Delivered late: this was due at {due}; I could not get it to you earlier.)_")
