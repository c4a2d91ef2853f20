"""What the agentd checks share, beside the judge (:mod:`conformance.judge`) and the page's data
(:mod:`conformance.agentd_page`):

* :mod:`.footing` — what a check stands on (card, listener, declarations) and the rows that govern it;
* :mod:`.cards` — reading what a card declares;
* :mod:`.clients` — a JSON-RPC client per role at the card's interface, plain HTTP on its origin;
* :mod:`.commands` — command messages; :mod:`.answers` — answers read strictly;
* :mod:`.bundles` — the schema bundles a target is validated against;
* :mod:`.configs` — configurations a launched reference is asked for;
* :mod:`.feed` — reading the event feed; :mod:`.observer` — the operator's view (a refusal ran nothing);
* :mod:`.ops` — running every built-in op with meaningful arguments;
* :mod:`.peer` — the recording A2A peer of the outbound checks;
* :mod:`.echo` — the ``A2A-Extensions`` echo; :mod:`.negotiation_cases` — the negotiation matrix.
"""
