"""What the core (``a2a`` family) checks share, beside the caller (:mod:`conformance.wire.caller`) and
the judge (:mod:`conformance.judge`):

* :mod:`.messages` — what a check sends: text messages and SendMessage params (also the agentd checks');
* :mod:`.states` — the terminal and interrupted task states (the references import them: one table);
* :mod:`.tasks` — reading tasks and stream events: states, kinds, history, timestamps;
* :mod:`.steps` — steps many checks share: making a task, holding one in a state, waiting on it, the card;
* :mod:`.streams` — reading task streams: strict frames, states, the end;
* :mod:`.hinted` — a task stream made from the target's long-running hint, canceled by the harness;
* :mod:`.versions` — which protocol versions a version check may probe.
"""
