"""Surgery: transform a trained run into a bigger model that computes the same function (``transforms``),
verify it on recorded observations (``verify``) and move the whole run (``run``); docs/surgery.md."""
