"""GNU Backgammon's judgement of plays and cube decisions (teaching mode).

``engine`` drives one long-lived gnubg process (``gnubg_script`` runs inside
it); ``analyst`` asks it in the game's terms; ``results`` holds the answers.
Nothing here is on the referee's path: the analysis service listens to the
event bus and publishes its findings after the referee's verdict.
"""
