"""Matches between team agents: the floor under the training system and the apps.

    agents.py     the registry of agents by name (the bots, RUN:VERSION of a run folder), the policy as a team agent
    games.py      play games to the end (``play_to_end``, ``play_games``), team statistics, Wilson intervals
    teams.py      which heroes a team drives (``active_heroes``) and the env's observations cut per team (``team_view``)
    inference.py  the batched forward pass of a policy (``Inference``, ``InferenceRequest`` -> ``InferenceResult``)
    device.py     where forward passes and the optimizer run (CPU, CUDA) and bf16 autocast on a GPU
    rating.py     TrueSkill on OpenAI Five's scale against frozen references
    decisions.py  one decision of every game and its shaped reward (``play_decision``): the rollout's and the
                  single-agent env's one loop
    single_agent.py  the game as a single-agent env against a named opponent, for library learners (Gymnasium
                  ``SingleAgentEnv``, N games ``SingleAgentGames``), and such a learner as a team agent
    sb3.py        Stable-Baselines3's ``VecEnv`` over ``SingleAgentGames`` (needs the ``baselines`` extra; nothing in
                  the package imports it)

It imports the game, the env, the model, the bots and a run folder's readers (``fivestack.runs``), never the training
system (``fivestack.system``), which builds on it: its rollout plays with ``team_view`` and ``Inference``, its
evaluator rates with ``play_games`` and ``rating``. ``fivestack play``, the arena, the draft and surgery play here.
"""
