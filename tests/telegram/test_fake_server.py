"""The fake Bot API itself: both encodings decode to the same values, and it checks like Telegram."""

from __future__ import annotations

import json

import httpx

from tests.telegram.fake_bot_api import FakeBotApi

KEYBOARD = {"inline_keyboard": [[{"text": "A", "callback_data": "ok:x"}]]}


async def test_form_and_json_bodies_decode_to_the_same_call(api: FakeBotApi) -> None:
    url = f"{api.base_url}{api.token}"
    entities = [{"type": "bold", "offset": 0, "length": 4}]
    async with httpx.AsyncClient() as client:
        as_json = await client.post(f"{url}/sendMessage", json={
            "chat_id": 42, "text": "1234 hi", "entities": entities, "reply_markup": KEYBOARD})
        as_form = await client.post(f"{url}/sendMessage", data={
            "chat_id": "42", "text": "1234 hi", "entities": json.dumps(entities),
            "reply_markup": json.dumps(KEYBOARD)})
        assert as_json.json()["ok"] and as_form.json()["ok"]
        first, second = api.calls_to("sendMessage")
        assert (first.encoding, second.encoding) == ("json", "form")
        assert first.params == second.params
        # A text that looks like a number stays text.
        await client.post(f"{url}/sendMessage", data={"chat_id": "42", "text": "1234"})
        assert api.calls_to("sendMessage")[-1].params["text"] == "1234"

        message_id = as_json.json()["result"]["message_id"]
        cleared = await client.post(f"{url}/editMessageReplyMarkup",
                                    data={"chat_id": "42", "message_id": str(message_id)})
        assert cleared.json()["ok"] and api.messages[(42, message_id)].reply_markup is None
        again = await client.post(f"{url}/editMessageReplyMarkup",
                                  data={"chat_id": "42", "message_id": str(message_id)})
        assert again.status_code == 400 and "not modified" in again.json()["description"]


async def test_it_rejects_what_telegram_rejects(api: FakeBotApi) -> None:
    url = f"{api.base_url}{api.token}"
    async with httpx.AsyncClient() as client:
        too_long = await client.post(f"{url}/sendMessage", data={"chat_id": "1", "text": "😀" * 2049})
        assert too_long.status_code == 400 and "too long" in too_long.json()["description"]
        out_of_bounds = await client.post(f"{url}/sendMessage", data={
            "chat_id": "1", "text": "😀a", "entities": json.dumps([{"type": "bold", "offset": 2, "length": 2}])})
        assert out_of_bounds.status_code == 400
        missing = await client.post(f"{url}/editMessageText",
                                    data={"chat_id": "1", "message_id": "999", "text": "x"})
        assert "not found" in missing.json()["description"]
        wrong_token = await client.post(f"{api.base_url}999:nope/getMe")
        assert wrong_token.status_code == 401
        unknown_query = await client.post(f"{url}/answerCallbackQuery", data={"callback_query_id": "zz"})
        assert unknown_query.status_code == 400
