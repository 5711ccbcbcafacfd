"""Modal screens of the chat app: help, saved sessions, settings."""
