"""evaldsl: a language for judging conversational and tool-using AI agents."""
