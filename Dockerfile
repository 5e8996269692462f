# Mayordomo: one process, one SQLite file on a volume, a non-root user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data \
    XDG_CACHE_HOME=/data/.cache

RUN useradd --create-home --uid 10001 mayordomo \
    && mkdir -p /data \
    && chown mayordomo:mayordomo /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY tools ./tools
COPY memory ./memory
RUN pip install --no-cache-dir .

USER 10001
VOLUME ["/data"]
EXPOSE 8089
ENTRYPOINT ["mayordomo"]
CMD ["run"]
