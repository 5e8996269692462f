"""Write a tiny llama-architecture GGUF that a real llama.cpp server loads in a second.

Run with the Python that has `gguf` installed (the llama-cpp-python venv):
`python tests/llama_cpp/tiny_gguf.py out.gguf`. No weights are downloaded: the tensors are
built here so that every answer ends at once (the residual stream stays constant and the
output layer points only at the end-of-text token). The tokenizer is byte-level SentencePiece,
so any prompt tokenizes; the chat template is `strict_template.jinja` beside this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gguf
import numpy as np

EMBED = 32
HEADS = 2
FEED_FORWARD = 64
CONTEXT = 65536
TEMPLATE = Path(__file__).with_name("strict_template.jinja")

UNKNOWN, CONTROL, BYTE, NORMAL = (gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL,
                                  gguf.TokenType.BYTE, gguf.TokenType.NORMAL)


def _vocabulary() -> tuple[list[str], list[int]]:
    tokens = ["<unk>", "<s>", "</s>"]
    types = [UNKNOWN, CONTROL, CONTROL]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [BYTE] * 256
    # Printable ASCII and the SentencePiece space mark as whole tokens: one token per character.
    tokens += ["\u2581"] + [chr(c) for c in range(33, 127)]
    types += [NORMAL] * 95
    return tokens, [int(t) for t in types]


def write(path: Path) -> None:
    tokens, types = _vocabulary()
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("mayordomo-tiny-strict")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBED)
    writer.add_block_count(1)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(EMBED // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * len(tokens))
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(False)
    writer.add_chat_template(TEMPLATE.read_text(encoding="utf-8"))

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros(shape, dtype=np.float32)

    # Constant embeddings and silent blocks keep the hidden state at ones, so the only
    # non-zero logit is the end-of-text token: every completion stops after zero tokens.
    writer.add_tensor("token_embd.weight", np.ones((len(tokens), EMBED), dtype=np.float32))
    writer.add_tensor("blk.0.attn_norm.weight", np.ones(EMBED, dtype=np.float32))
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        writer.add_tensor(f"blk.0.{name}.weight", zeros(EMBED, EMBED))
    writer.add_tensor("blk.0.ffn_norm.weight", np.ones(EMBED, dtype=np.float32))
    writer.add_tensor("blk.0.ffn_gate.weight", zeros(FEED_FORWARD, EMBED))
    writer.add_tensor("blk.0.ffn_up.weight", zeros(FEED_FORWARD, EMBED))
    writer.add_tensor("blk.0.ffn_down.weight", zeros(EMBED, FEED_FORWARD))
    writer.add_tensor("output_norm.weight", np.ones(EMBED, dtype=np.float32))
    output = zeros(len(tokens), EMBED)
    output[2] = 10.0
    writer.add_tensor("output.weight", output)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    write(Path(sys.argv[1]))
