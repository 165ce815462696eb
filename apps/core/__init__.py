"""Small building blocks that every app may use. It imports no app, so any app may import it."""
