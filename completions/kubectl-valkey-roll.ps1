
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-valkey-roll' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-valkey-roll'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-valkey-roll' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One report per ValkeyCluster: verdict, holder, queue, one row per node')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Why a node (or a cluster) is in its state, with evidence and a timeline')
            [CompletionResult]::new('grant', 'grant', [CompletionResultType]::ParameterValue, 'Let a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Remove a node''s permit (P1 only)')
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Grant even when the safety checks refuse (P1 only; --reason required)')
            [CompletionResult]::new('replace-pod', 'replace-pod', [CompletionResultType]::ParameterValue, 'Delete a node''s superseded, not-Ready pod so its StatefulSet recreates it (the OrderedReady trap)')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until the roll is Converged (exit 3 on Jammed, Stalled or Conflict)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'The current roll so far: one row per node, when it was advanced (and by whom), applied, Ready, how long it took')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write the objects `status` reads as one kubectl List, for a hand-over (read it back with -f)')
            [CompletionResult]::new('exporter', 'exporter', [CompletionResultType]::ParameterValue, 'Serve the verdicts of every ValkeyCluster in view as Prometheus metrics, kept live')
            [CompletionResult]::new('dashboard', 'dashboard', [CompletionResultType]::ParameterValue, 'A read-only web page of every roll in view, kept live (status --watch in a browser)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Version, commit, target and the protocols understood')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-valkey-roll;status' {
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Also read the Valkey servers (with --watch: every 5s), as the read-only user _exporter: through the API server''s port-forward (the default), or straight to the pod IPs (direct, in the cluster)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep the report live until Ctrl-C (or SIGTERM)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep the report live until Ctrl-C (or SIGTERM)')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit 3 when a verdict needs attention (Jammed, Stalled, Conflict)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;explain' {
            [CompletionResult]::new('--operator-namespace', '--operator-namespace', [CompletionResultType]::ParameterName, 'Where the valkey-operator runs: when it looks silent, explain reads its leader-election Lease there')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Read the cluster''s Valkey servers (as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;grant' {
            [CompletionResult]::new('--revision', '--revision', [CompletionResultType]::ParameterName, 'Grant this revision instead of the asked-for one')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, recorded on the node and in an Event')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'none: write; client: print the plan, send nothing; server: send with dryRun=All')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The protocol to assume for a cluster whose protocol is unknown')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Read the servers of the node''s cluster before planning (as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--any', '--any', [CompletionResultType]::ParameterName, 'Grant `*` (whatever the node builds now; P1 only)')
            [CompletionResult]::new('--allow-primary', '--allow-primary', [CompletionResultType]::ParameterName, 'Allow granting a primary (the controller''s proactive failover does not run for a permit given by hand)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;revoke' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, recorded in an Event')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'none: write; client: print the plan, send nothing; server: send with dryRun=All')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The protocol to assume for a cluster whose protocol is unknown')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Read the servers of the node''s cluster before planning (as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;force' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (required), recorded on the node and in an Event')
            [CompletionResult]::new('--revision', '--revision', [CompletionResultType]::ParameterName, 'Write this revision instead of the asked-for one')
            [CompletionResult]::new('--unsafe-shard', '--unsafe-shard', [CompletionResultType]::ParameterName, 'Go on though the servers say this shard (its number, typed out) would be left with no synced replica: what no replica has may be lost')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'none: write; client: print the plan, send nothing; server: send with dryRun=All')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The protocol to assume for a cluster whose protocol is unknown')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Read the servers of the node''s cluster before planning (as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--takeover', '--takeover', [CompletionResultType]::ParameterName, 'Revoke every other holder''s permit in the same command')
            [CompletionResult]::new('--any', '--any', [CompletionResultType]::ParameterName, 'Write `*`')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;replace-pod' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why, recorded in an Event')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'none: write; client: print the plan, send nothing; server: send with dryRun=All')
            [CompletionResult]::new('--protocol', '--protocol', [CompletionResultType]::ParameterName, 'The protocol to assume for a cluster whose protocol is unknown')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Read the servers of the node''s cluster before planning (as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;wait' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up after this long (exit 5); default: no timeout')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Also read the Valkey servers (every 5s), as the read-only user _exporter: through the API server''s port-forward (the default), or straight to the pod IPs (direct, in the cluster)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--no-fail-fast', '--no-fail-fast', [CompletionResultType]::ParameterName, 'Keep waiting on Jammed, Stalled or Conflict')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;history' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;bundle' {
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write the bundle to this file instead of stdout (-o is the output format, as everywhere)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'yaml (with a header comment) or json (default: yaml; -o json also picks json)')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Keep what the clusters'' Valkey servers say (read as the read-only user _exporter): through the API server''s port-forward, straight to the pod IPs (direct), or not at all (off)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;exporter' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to serve /metrics, /healthz and /readyz on')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Also read the Valkey servers, as the read-only user _exporter, and export the shards at risk: straight to the pod IPs (direct, the default, for the exporter in the cluster), or through the API server''s port-forward')
            [CompletionResult]::new('--servers-interval', '--servers-interval', [CompletionResultType]::ParameterName, 'The pause between two readings of every cluster''s servers')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;dashboard' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to serve the page on (anything but loopback: the page has no login)')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'Also read the Valkey servers (every 5s), as the read-only user _exporter: through the API server''s port-forward (the default), or straight to the pod IPs (direct, in the cluster)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;completion' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;version' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace (live: default the kubeconfig context''s, else `default`; with -f: every namespace in the file unless given)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster entry to use (kubectl''s --cluster; a ValkeyCluster is named by the positional CLUSTER)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user entry to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this user')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Act as this group (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit of each API request (watch streams are exempt)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--stall-threshold', '--stall-threshold', [CompletionResultType]::ParameterName, 'How long without progress before a holder is Stuck or a wait is Stalled')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The clock for every duration (RFC 3339); default the real clock')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit text to this many columns (0: no limit). Default: the terminal''s width (or COLUMNS); piped output keeps whole lines')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level, as kubectl''s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace')
            [CompletionResult]::new('--all-contexts', '--all-contexts', [CompletionResultType]::ParameterName, 'Every context of the kubeconfig (status, wait, exporter and dashboard)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'No colour (also NO_COLOR; colour is only used on a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave the headers out of a table (its rows alone)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-valkey-roll;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One report per ValkeyCluster: verdict, holder, queue, one row per node')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Why a node (or a cluster) is in its state, with evidence and a timeline')
            [CompletionResult]::new('grant', 'grant', [CompletionResultType]::ParameterValue, 'Let a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Remove a node''s permit (P1 only)')
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Grant even when the safety checks refuse (P1 only; --reason required)')
            [CompletionResult]::new('replace-pod', 'replace-pod', [CompletionResultType]::ParameterValue, 'Delete a node''s superseded, not-Ready pod so its StatefulSet recreates it (the OrderedReady trap)')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until the roll is Converged (exit 3 on Jammed, Stalled or Conflict)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'The current roll so far: one row per node, when it was advanced (and by whom), applied, Ready, how long it took')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write the objects `status` reads as one kubectl List, for a hand-over (read it back with -f)')
            [CompletionResult]::new('exporter', 'exporter', [CompletionResultType]::ParameterValue, 'Serve the verdicts of every ValkeyCluster in view as Prometheus metrics, kept live')
            [CompletionResult]::new('dashboard', 'dashboard', [CompletionResultType]::ParameterValue, 'A read-only web page of every roll in view, kept live (status --watch in a browser)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Version, commit, target and the protocols understood')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-valkey-roll;help;status' {
            break
        }
        'kubectl-valkey-roll;help;explain' {
            break
        }
        'kubectl-valkey-roll;help;grant' {
            break
        }
        'kubectl-valkey-roll;help;revoke' {
            break
        }
        'kubectl-valkey-roll;help;force' {
            break
        }
        'kubectl-valkey-roll;help;replace-pod' {
            break
        }
        'kubectl-valkey-roll;help;wait' {
            break
        }
        'kubectl-valkey-roll;help;history' {
            break
        }
        'kubectl-valkey-roll;help;bundle' {
            break
        }
        'kubectl-valkey-roll;help;exporter' {
            break
        }
        'kubectl-valkey-roll;help;dashboard' {
            break
        }
        'kubectl-valkey-roll;help;completion' {
            break
        }
        'kubectl-valkey-roll;help;version' {
            break
        }
        'kubectl-valkey-roll;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
