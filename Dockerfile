# One image for web (gunicorn), worker, beat and the ERP simulator (see docker-compose.yml).
# Runtime dependencies only: requirements.lock (tests and benchmarks have their own locks).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/app/var
WORKDIR /app

COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

# The project's own code only (not .venv, var/ or local databases).
COPY manage.py pyproject.toml gunicorn.conf.py ./
COPY agentstate agentstate/
COPY procurement procurement/
COPY erpsim erpsim/
COPY templates templates/
COPY static static/
COPY locale locale/

# Static files with hashed, compressed names, served by whitenoise from gunicorn.
RUN STATIC_MANIFEST=true python manage.py collectstatic --noinput -v 0 \
    && useradd --system --uid 1000 --home /app app && mkdir -p /app/var/media /data && chown -R app /app/var /data
USER app

EXPOSE 8000 8765
# gunicorn reads ./gunicorn.conf.py: WEB_WORKERS x WEB_THREADS, each worker's DB pool sized to its threads.
CMD ["gunicorn"]
