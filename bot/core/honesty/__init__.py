"""The honesty check: what the user asked, what the answer claims, what really ran, and receipts.

`verify` judges an answer sentence by sentence against the turn's call records (`claims`,
`intent`, `details`, backed by a small classifier in `claim_model`); `receipts` writes, from
those records, what each side-effect call really did.
"""
