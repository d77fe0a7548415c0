"""People and access: signing in (password with lockouts, the directory through OIDC), API tokens,
each person's language, who may reach which page (`access`), and offboarding a person who
leaves. Who may *see* an object is the read layer's (`procurement.selectors`). DESIGN §5, §9."""
