"""Training scripts for the vision models (need torch, which is NOT a runtime dependency).

Rebuild the dice models with ``python -m vision.training.train_dice`` (see its docstring).
"""
