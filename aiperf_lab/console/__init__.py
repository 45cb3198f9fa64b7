"""The Textual console: screens and widgets that show what the domain packages compute."""
