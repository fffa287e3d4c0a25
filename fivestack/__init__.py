"""fivestack: OpenAI-Five-style self-play RL for a Dota-like 5v5 game."""
