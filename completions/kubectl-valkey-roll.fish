# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_valkey_roll_global_optspecs
    string join \n n/namespace= A/all-namespaces context= all-contexts cluster= user= kubeconfig= as= as-group= request-timeout= o/output= stall-threshold= no-color f/filename= now= width= no-headers v/v= h/help
end

function __fish_kubectl_valkey_roll_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_valkey_roll_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_valkey_roll_using_subcommand
    set -l cmd (__fish_kubectl_valkey_roll_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "status" -d 'One report per ValkeyCluster: verdict, holder, queue, one row per node'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "explain" -d 'Why a node (or a cluster) is in its state, with evidence and a timeline'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "grant" -d 'Let a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "revoke" -d 'Remove a node\'s permit (P1 only)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "force" -d 'Grant even when the safety checks refuse (P1 only; --reason required)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "replace-pod" -d 'Delete a node\'s superseded, not-Ready pod so its StatefulSet recreates it (the OrderedReady trap)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "wait" -d 'Block until the roll is Converged (exit 3 on Jammed, Stalled or Conflict)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "history" -d 'The current roll so far: one row per node, when it was advanced (and by whom), applied, Ready, how long it took'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "bundle" -d 'Write the objects `status` reads as one kubectl List, for a hand-over (read it back with -f)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "exporter" -d 'Serve the verdicts of every ValkeyCluster in view as Prometheus metrics, kept live'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "dashboard" -d 'A read-only web page of every roll in view, kept live (status --watch in a browser)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "version" -d 'Version, commit, target and the protocols understood'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l servers -d 'Also read the Valkey servers (with --watch: every 5s), as the read-only user _exporter: through the API server\'s port-forward (the default), or straight to the pod IPs (direct, in the cluster)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s w -l watch -d 'Keep the report live until Ctrl-C (or SIGTERM)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l exit-code -d 'Exit 3 when a verdict needs attention (Jammed, Stalled, Conflict)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l operator-namespace -d 'Where the valkey-operator runs: when it looks silent, explain reads its leader-election Lease there' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l servers -d 'Read the cluster\'s Valkey servers (as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l revision -d 'Grant this revision instead of the asked-for one' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l reason -d 'Why, recorded on the node and in an Event' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l dry-run -d 'none: write; client: print the plan, send nothing; server: send with dryRun=All' -r -f -a "none\t''
client\t''
server\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l protocol -d 'The protocol to assume for a cluster whose protocol is unknown' -r -f -a "P1\t''
P2\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l servers -d 'Read the servers of the node\'s cluster before planning (as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l any -d 'Grant `*` (whatever the node builds now; P1 only)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l allow-primary -d 'Allow granting a primary (the controller\'s proactive failover does not run for a permit given by hand)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s y -l yes -d 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand grant" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l reason -d 'Why, recorded in an Event' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l dry-run -d 'none: write; client: print the plan, send nothing; server: send with dryRun=All' -r -f -a "none\t''
client\t''
server\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l protocol -d 'The protocol to assume for a cluster whose protocol is unknown' -r -f -a "P1\t''
P2\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l servers -d 'Read the servers of the node\'s cluster before planning (as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s y -l yes -d 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l reason -d 'Why (required), recorded on the node and in an Event' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l revision -d 'Write this revision instead of the asked-for one' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l unsafe-shard -d 'Go on though the servers say this shard (its number, typed out) would be left with no synced replica: what no replica has may be lost' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l dry-run -d 'none: write; client: print the plan, send nothing; server: send with dryRun=All' -r -f -a "none\t''
client\t''
server\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l protocol -d 'The protocol to assume for a cluster whose protocol is unknown' -r -f -a "P1\t''
P2\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l servers -d 'Read the servers of the node\'s cluster before planning (as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l takeover -d 'Revoke every other holder\'s permit in the same command'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l any -d 'Write `*`'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s y -l yes -d 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand force" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l reason -d 'Why, recorded in an Event' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l dry-run -d 'none: write; client: print the plan, send nothing; server: send with dryRun=All' -r -f -a "none\t''
client\t''
server\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l protocol -d 'The protocol to assume for a cluster whose protocol is unknown' -r -f -a "P1\t''
P2\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l servers -d 'Read the servers of the node\'s cluster before planning (as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off: decided from the API alone, and the plan says so)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s y -l yes -d 'Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand replace-pod" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l timeout -d 'Give up after this long (exit 5); default: no timeout' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l servers -d 'Also read the Valkey servers (every 5s), as the read-only user _exporter: through the API server\'s port-forward (the default), or straight to the pod IPs (direct, in the cluster)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l no-fail-fast -d 'Keep waiting on Jammed, Stalled or Conflict'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand wait" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l output-file -d 'Write the bundle to this file instead of stdout (-o is the output format, as everywhere)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l format -d 'yaml (with a header comment) or json (default: yaml; -o json also picks json)' -r -f -a "yaml\t''
json\t''"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l servers -d 'Keep what the clusters\' Valkey servers say (read as the read-only user _exporter): through the API server\'s port-forward, straight to the pod IPs (direct), or not at all (off)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand bundle" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l listen -d 'The address to serve /metrics, /healthz and /readyz on' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l servers -d 'Also read the Valkey servers, as the read-only user _exporter, and export the shards at risk: straight to the pod IPs (direct, the default, for the exporter in the cluster), or through the API server\'s port-forward' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l servers-interval -d 'The pause between two readings of every cluster\'s servers' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand exporter" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l listen -d 'The address to serve the page on (anything but loopback: the page has no login)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l servers -d 'Also read the Valkey servers (every 5s), as the read-only user _exporter: through the API server\'s port-forward (the default), or straight to the pod IPs (direct, in the cluster)' -r -f -a "off\t'Do not read them'
port-forward\t'The API server\'s port-forward to each pod\'s port 6379'
direct\t'Each pod\'s IP, port 6379 (where the plugin runs in the cluster)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l servers-ca -d 'For clusters with TLS: a PEM file of the CA that signed the servers\' certificates (never read from their certificate Secret, which holds their private key)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l servers-ca-configmap -d 'For clusters with TLS: the same CA from a ConfigMap\'s key (default key ca.crt), read with one GET of that ConfigMap' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand dashboard" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s n -l namespace -d 'Namespace (live: default the kubeconfig context\'s, else `default`; with -f: every namespace in the file unless given)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l context -d 'The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l cluster -d 'The kubeconfig cluster entry to use (kubectl\'s --cluster; a ValkeyCluster is named by the positional CLUSTER)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l user -d 'The kubeconfig user entry to use' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l kubeconfig -d 'Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l as -d 'Act as this user' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l as-group -d 'Act as this group (repeatable)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l request-timeout -d 'Time limit of each API request (watch streams are exempt)' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s o -l output -d 'Output format' -r -f -a "table\t'Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut'
wide\t'Every column, and every reason whole'
json\t''
yaml\t''
name\t'The objects\' names, one a line (kubectl\'s resource/name)'
svg\t'history only: the roll as a picture, one row per node on a time axis (SVG)'"
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l stall-threshold -d 'How long without progress before a holder is Stuck or a wait is Stalled' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s f -l filename -l from-file -d 'Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed' -r -F
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l now -d 'The clock for every duration (RFC 3339); default the real clock' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l width -d 'Fit text to this many columns (0: no limit). Default: the terminal\'s width (or COLUMNS); piped output keeps whole lines' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s v -l v -d 'Log level, as kubectl\'s -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too' -r
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l all-contexts -d 'Every context of the kubeconfig (status, wait, exporter and dashboard)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l no-color -d 'No colour (also NO_COLOR; colour is only used on a terminal)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -l no-headers -d 'Leave the headers out of a table (its rows alone)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "status" -d 'One report per ValkeyCluster: verdict, holder, queue, one row per node'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "explain" -d 'Why a node (or a cluster) is in its state, with evidence and a timeline'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "grant" -d 'Let a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "revoke" -d 'Remove a node\'s permit (P1 only)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "force" -d 'Grant even when the safety checks refuse (P1 only; --reason required)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "replace-pod" -d 'Delete a node\'s superseded, not-Ready pod so its StatefulSet recreates it (the OrderedReady trap)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "wait" -d 'Block until the roll is Converged (exit 3 on Jammed, Stalled or Conflict)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "history" -d 'The current roll so far: one row per node, when it was advanced (and by whom), applied, Ready, how long it took'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "bundle" -d 'Write the objects `status` reads as one kubectl List, for a hand-over (read it back with -f)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "exporter" -d 'Serve the verdicts of every ValkeyCluster in view as Prometheus metrics, kept live'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "dashboard" -d 'A read-only web page of every roll in view, kept live (status --watch in a browser)'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "version" -d 'Version, commit, target and the protocols understood'
complete -c kubectl-valkey-roll -n "__fish_kubectl_valkey_roll_using_subcommand help; and not __fish_seen_subcommand_from status explain grant revoke force replace-pod wait history bundle exporter dashboard completion version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
