"""Widgets of the chat app, one module each."""
