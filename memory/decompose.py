"""Splitting a question into simpler ones with the memory model, for recall (optional).

"Which cities has Jon visited?" asks for memories of several trips; sub-questions such as
"Jon's trip to Rome" find each. Off unless MEMORY_DECOMPOSE_QUESTIONS is set and a memory
model is configured: it costs a model call per recall.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.llm import ChatMessage, ModelClient
from memory.modelio import ask_json, schema_hint

MAX_PARTS = 3


class SubQuestions(BaseModel):
    queries: list[str] = Field(default_factory=list, max_length=MAX_PARTS)


INSTRUCTIONS = (
    "You help search a personal memory. Split the user's question into at most "
    f"{MAX_PARTS} short search queries, one for each separate thing to look up (a person, a place, "
    "an event, a time). A simple question needs no split: answer with an empty list. Keep the "
    "question's language. Answer with only a JSON object fitting this schema: "
)


class QuestionSplitter:
    def __init__(self, model: ModelClient) -> None:
        self._model = model

    async def split(self, user_key: str, question: str) -> list[str]:
        """Sub-queries (none when the model finds nothing to split, fails, or answers badly)."""
        messages: list[ChatMessage] = [
            {"role": "system", "content": INSTRUCTIONS + schema_hint(SubQuestions)},
            {"role": "user", "content": question[:2000]},
        ]
        answer = await ask_json(self._model, messages, SubQuestions, user_key=user_key, attempts=1)
        if answer is None:
            return []
        seen = {question.strip().casefold()}
        parts: list[str] = []
        for query in answer.queries:
            cleaned = " ".join(query.split())[:300]
            if cleaned and cleaned.casefold() not in seen:
                seen.add(cleaned.casefold())
                parts.append(cleaned)
        return parts
