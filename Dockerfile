# One image for web, worker, beat and the ERP simulator (see docker-compose.yml).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/app/var
WORKDIR /app

COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

# The project's own code only (not .venv, var/ or local databases).
COPY manage.py pyproject.toml ./
COPY agentstate agentstate/
COPY procurement procurement/
COPY erpsim erpsim/
COPY templates templates/
COPY static static/
RUN mkdir -p /app/var

EXPOSE 8000 8765
CMD ["python", "manage.py", "runserver", "0.0.0.0:8000", "--noreload", "--insecure"]
