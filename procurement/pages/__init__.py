"""The browser pages (htmx and Django templates). Views parse, call one service, render."""
