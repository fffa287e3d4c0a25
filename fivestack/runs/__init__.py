"""A run as data: its configuration and what its folder holds on disk.

    config.py       ``TrainConfig``: every setting of a run, with its default, its documentation and its checks;
                    ``load_config`` (TOML + ``--set`` overrides), ``to_toml`` / ``from_dict`` (config.toml, state.json)
    checkpoints.py  reading a run folder back: its checkpoints (``latest_checkpoint``, ``load_checkpoint``) and its
                    opponent pool's snapshots (``snapshot_path``, ``read_snapshot``)

Below the match layer and the training system, so that loading a trained version (``fivestack.match.agents``)
needs neither the training loop nor its writers (``fivestack.system.controller``, ``fivestack.system.pool``).
"""
