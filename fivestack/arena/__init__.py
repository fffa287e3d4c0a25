"""The arena: a person plays a live game in the browser, against or beside a trained team or a bot
(``fivestack arena``; the whole story in docs/arena.md).

    protocol.py   what the page may say: ``parse_command`` checks a message's form (types, names, ranges, size)
                  and raises ``ProtocolError(code, message)``; ``RateLimiter``, the per-connection token bucket
    session.py    ``ArenaGame``: the live game. A person's order becomes the same action row an agent sends, after
                  the checks against the game (the player's hero, a unit the team sees, the action masks); ``tick``
                  plays one timestep and returns the page's frame, which holds only what the team sees
    records.py    where games go (``arena.jsonl`` and replays in the run folder played against, or
                  ``runs/arena-NAME``) and the record against people with its 95% interval (``--stats``)
    server.py     ``ArenaServer``: HTTP and the WebSocket on one port, the Origin check and the page's token, the
                  real-time clock (a tick every 2/15 s), pause, resume, and a page that leaves
    static/       the page (``arena.html``, ``arena.js``, ``arena.css``); it draws with the viewer's ``map.js``
    trained/      the small 1v1 hero that ships with fivestack (``--against trained``)

Imports: game, env, bots, model, system (to load a policy) and viewer (the replay recorder and ``map.js``);
nothing but the CLI imports the arena.
"""
