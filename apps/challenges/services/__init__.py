"""The challenge rules, one module per subdomain. Import from the module itself (nothing is re-exported):
cards (start, stop, delete a card), dips (register), dip_rules (when a dip counts, the precheck), dip_changes
(undo, delete, details), recount (the member's lock and dip count, a card after a dip leaves), catalogue
(challenges and their badges), errors."""
