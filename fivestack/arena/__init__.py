"""The arena: a person plays a live game in the browser, against or beside a trained team or a bot.

(Map of the package: filled in as its modules land; see /work/arena_spec.md while it is built.)
"""
