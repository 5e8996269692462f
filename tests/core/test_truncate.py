from tools.truncate import truncate


def test_short_text_is_untouched() -> None:
    assert truncate("hello", 100) == "hello"


def test_long_text_keeps_head_and_tail_and_says_what_was_cut() -> None:
    text = "HEAD" + "x" * 10_000 + "TAIL"
    cut = truncate(text, 500)
    assert cut.startswith("HEAD") and cut.endswith("TAIL")
    assert len(cut) <= 500
    assert "characters cut" in cut and "10,008" in cut


def test_truncation_is_deterministic() -> None:
    text = "".join(str(i) for i in range(5000))
    assert truncate(text, 300) == truncate(text, 300)
