// validate-grafana-dashboard (main.go): Grafana's dashboard schema, as the
// Grafana Foundation SDK's Go types, checks deploy/grafana/*.json.
module kubectl-valkey-roll/testbin/grafana

go 1.26.7

require github.com/grafana/grafana-foundation-sdk/go v0.0.22
