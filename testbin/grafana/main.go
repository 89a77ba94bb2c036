// Builds validate-grafana-dashboard for tests/grafana.rs (see ../README.md):
// it reads each dashboard JSON named on the command line with the Grafana
// Foundation SDK, Grafana's own dashboard schema as Go types: a strict
// decoding (an unknown field or a value of the wrong type is an error; each
// panel's options and field config are read by its plugin's schema, each
// query by its data source's), then the SDK's own Validate. It prints one
// line per file and exits 1 when any file fails.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// strict decodes raw into d; the SDK may answer an empty list of errors
// as a non-nil error, which is no error.
func strict(d *dashboard.Dashboard, raw []byte) error {
	err := d.UnmarshalJSONStrict(raw)
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

func check(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d dashboard.Dashboard
	if err := strict(&d, raw); err != nil {
		return fmt.Errorf("does not follow the dashboard schema: %w", err)
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("invalid: %w", err)
	}
	fmt.Printf("%s: ok: schemaVersion %d, %d panels, %d variables\n",
		path, d.SchemaVersion, len(d.Panels), len(d.Templating.List))
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: validate-grafana-dashboard FILE.json...")
		os.Exit(2)
	}
	plugins.RegisterDefaultPlugins()
	failed := false
	for _, path := range os.Args[1:] {
		if err := check(path); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
