"""The pages, in modules named by what the player does: ``table`` (opening, joining,
watching and keeping a match's sheet), ``accounts`` (getting in) and
``looking_back`` (nights, history, standings, exports). ``answers`` says how
every page answers a change, a refusal or a problem.

Anyone who may not see a match gets a 404, so a stranger never learns that it
exists.
"""
