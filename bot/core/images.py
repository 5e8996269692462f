"""Photos scaled down to a bounded size before they go to a model (Pillow, in a worker thread)."""

from __future__ import annotations

import base64
import io

from bot.errors import MayordomoError

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp"})
# Decoding a huge canvas costs memory no matter how small the file: refuse it first.
MAX_PIXELS = 60_000_000


class ImageError(MayordomoError):
    """The bytes are not a picture that can be shown to a model."""


def downscaled_jpeg(data: bytes, max_side: int) -> bytes:
    """The picture as a JPEG whose longest side is at most `max_side` pixels."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise ImageError(f"the picture is {opened.width}×{opened.height} pixels, too large to read")
            image = ImageOps.exif_transpose(opened).convert("RGB")
    except ImageError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError("it is not a picture I can open (damaged or an unknown format)") from exc
    image.thumbnail((max_side, max_side))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return out.getvalue()


def data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
