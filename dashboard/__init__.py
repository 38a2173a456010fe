"""The latency dashboard (issue 6): a read-only Streamlit app over the telemetry lake and the
selector's model registry. `queries` and `registry_view` hold the data logic (no Streamlit),
`charts` the Altair builders, `app` and `pages/` the UI; docs/dashboard.md describes it."""
