// pulumi-language-go: the Go language host the Pulumi CLI starts to run a Go program
// and to generate a Go SDK (`pulumi package gen-sdk --language go`).
//
// Why ours: Pulumi's own host is the Go module
// github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3, which the Go module proxy these
// machines reach refuses (403, as for the Node.js host: see ../language-host.ts), while
// it serves the SDK (github.com/pulumi/pulumi/sdk/v3) and the code generator
// (github.com/pulumi/pulumi/pkg/v3/codegen/go). It is written in Go, not TypeScript,
// because gen-sdk asks the language host to generate the SDK and Pulumi's Go code
// generator exists only in Go. What a program sees is what Pulumi's host gives it (read
// from its main.go: Run, compileProgram, constructEnv): the program is built with
// `go build` in its directory (or the prebuilt `binary:` of Pulumi.yaml's runtime
// options is run), and started with the PULUMI_* variables the Go SDK reads
// (sdk/go/pulumi/run.go). The engine, the SDK and the code generator stay Pulumi's.
//
// It also answers, as Pulumi's host does and with Pulumi's Go code generator (the code it
// shares with our Python host's Go half is in ./hostgen): GenerateProgram (the Go code
// `pulumi import` prints or writes with --out), GenerateProject (`pulumi convert`), Link
// (`pulumi package add`: a replace directive in go.mod), InstallDependencies (`pulumi
// install`: `go mod tidy`) and GetRequiredPackages (the plugins named by the required
// modules' pulumi-plugin.json). Left out, because nothing here needs them: debuggers, `go run`
// (PULUMI_GO_USE_RUN), and, each answering that it is not supported, naming the command:
// plugins and policy packs written in Go, `pulumi package pack-sdk`, `pulumi new` templates.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"golang.org/x/mod/modfile"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/constant"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"pulumi-svc/pulumi-cli/go-host/hostgen"
)

// version is the CLI's (set by scripts/pulumi-install.ts with -ldflags -X): the engine
// asks a language host for its version, and ours ships with one CLI.
var version = "3.0.0"

func main() {
	showVersion := flag.Bool("version", false, "print the version and exit")
	// The CLI may pass -tracing; there is nothing here to trace.
	_ = flag.String("tracing", "", "ignored")
	flag.Parse()
	if *showVersion {
		fmt.Println(version)
		return
	}
	engine := flag.Arg(0)

	// The CLI closes a plugin with SIGINT; programs still running get it too (cancelled below).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if engine != "" {
		// A CLI killed outright closes nothing: leave when its engine stops answering.
		if err := rpcutil.Healthcheck(ctx, engine, 5*time.Minute, stop); err != nil {
			fail(fmt.Errorf("could not start the health check of the engine: %w", err))
		}
	}
	done := make(chan bool)
	go func() {
		<-ctx.Done()
		close(done)
	}()
	runs, cancelRuns := context.WithCancel(ctx)
	defer cancelRuns()
	h := &host{engine: engine, ctx: runs, cancel: cancelRuns}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: done,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fail(fmt.Errorf("could not start the language host's RPC server: %w", err))
	}
	// The port line is how the CLI finds us: nothing else goes to stdout before it.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fail(fmt.Errorf("the language host's RPC server stopped: %w", err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "pulumi-language-go: %v\n", err)
	os.Exit(1)
}

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engine string
	// Done when the CLI stops the host or calls Cancel: running programs are interrupted.
	ctx    context.Context
	cancel context.CancelFunc
}

// goOptions are Pulumi.yaml's `runtime: {name: go, options: {...}}`, as Pulumi's host reads them.
type goOptions struct {
	binary      string // a prebuilt program to run instead of building one
	buildTarget string // where `go build` writes the program (kept), instead of a temporary file
}

func parseOptions(raw map[string]any) (goOptions, error) {
	var o goOptions
	for name, into := range map[string]*string{"binary": &o.binary, "buildTarget": &o.buildTarget} {
		v, ok := raw[name]
		if !ok {
			continue
		}
		s, isString := v.(string)
		if !isString {
			return o, fmt.Errorf("runtime option %s must be a string, got %v", name, v)
		}
		*into = s
	}
	if o.binary != "" && o.buildTarget != "" {
		return o, errors.New("runtime options binary and buildTarget cannot both be set: binary runs a program built beforehand, buildTarget says where to build one")
	}
	return o, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	opts, err := parseOptions(info.GetOptions().AsMap())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	env, err := programEnv(req, h.engine)
	if err != nil {
		return nil, err
	}
	program := opts.binary
	if program != "" {
		// A relative binary is the project's (beside Pulumi.yaml); a bare name is looked up on PATH.
		if strings.ContainsRune(program, filepath.Separator) && !filepath.IsAbs(program) {
			program = filepath.Join(info.GetRootDirectory(), program)
		}
		if program, err = exec.LookPath(program); err != nil {
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("runtime option binary: %v", err)}, nil
		}
	} else {
		if program, err = build(info.GetProgramDirectory(), opts.buildTarget); err != nil {
			return &pulumirpc.RunResponse{Error: err.Error()}, nil
		}
		if opts.buildTarget == "" {
			defer os.Remove(program)
		}
	}

	// Interrupted when the engine gives up on this run (ctx) or the CLI stops the host.
	runCtx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	context.AfterFunc(ctx, cancel)
	cmd := exec.CommandContext(runCtx, program)
	cmd.Dir = req.GetPwd()
	cmd.Env = env
	// The CLI shows what the host writes: the program's output goes through unchanged.
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exit) && exit.ExitCode() == constant.ExitStatusLoggedError:
		// The program has told the engine what went wrong: nothing more to say.
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("program exited with non-zero exit code: %d", exit.ExitCode())}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("program %s did not run to its end: %v", program, err)}, nil
	}
}

// build runs `go build` in the program's directory, into target or a temporary file, and
// returns the program's path. Its output goes to the CLI, as the program's does.
func build(dir, target string) (string, error) {
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(matches) == 0 {
		return "", fmt.Errorf("no Go files in %s to build (set runtime option binary to run a program built beforehand)", dir)
	}
	if target == "" {
		f, err := os.CreateTemp("", "pulumi-go.*")
		if err != nil {
			return "", fmt.Errorf("could not make a file for the program: %w", err)
		}
		target = f.Name()
		_ = f.Close()
	} else if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	cmd := exec.Command("go", "build", "-buildvcs=false", "-trimpath", "-ldflags", "-w -s", "-o", target)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build of the program in %s failed (%v): see its output above", dir, err)
	}
	return target, nil
}

// programEnv is how a Go program learns what to run against: the Go SDK's pulumi.Run
// reads these variables (sdk/go/pulumi/run.go); empty values are left out, as Pulumi's host does.
func programEnv(req *pulumirpc.RunRequest, engine string) ([]string, error) {
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	for _, kv := range [][2]string{
		{pulumi.EnvOrganization, req.GetOrganization()},
		{pulumi.EnvProject, req.GetProject()},
		{pulumi.EnvPulumiRootDirectory, req.GetInfo().GetRootDirectory()},
		{pulumi.EnvStack, req.GetStack()},
		{pulumi.EnvConfig, string(config)},
		{pulumi.EnvConfigSecretKeys, string(secretKeysJSON)},
		{pulumi.EnvDryRun, strconv.FormatBool(req.GetDryRun())},
		{pulumi.EnvParallel, strconv.Itoa(int(req.GetParallel()))},
		{pulumi.EnvMonitor, req.GetMonitorAddress()},
		{pulumi.EnvEngine, engine},
	} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return env, nil
}

// GeneratePackage writes the Go SDK of a schema (`pulumi package gen-sdk`): Pulumi's Go code generator.
func (h *host) GeneratePackage(ctx context.Context, req *pulumirpc.GeneratePackageRequest) (*pulumirpc.GeneratePackageResponse, error) {
	if len(req.GetExtraFiles()) > 0 {
		return nil, errors.New("overlays (extra files) are not supported for Go SDKs")
	}
	return hostgen.GeneratePackage(req, func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
		return gogen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
	})
}

// GenerateProgram turns a program in Pulumi's intermediate language (PCL) into Go: what
// `pulumi import` prints (or writes to --out) for the resources it imported.
func (h *host) GenerateProgram(ctx context.Context, req *pulumirpc.GenerateProgramRequest) (*pulumirpc.GenerateProgramResponse, error) {
	return hostgen.GenerateProgram(req, gogen.GenerateProgram)
}

// GenerateProject writes a whole Go project (main.go, go.mod, Pulumi.yaml) from a PCL
// directory: what `pulumi convert --language go` asks for.
func (h *host) GenerateProject(ctx context.Context, req *pulumirpc.GenerateProjectRequest) (*pulumirpc.GenerateProjectResponse, error) {
	return hostgen.GenerateProject(req, gogen.GenerateProject)
}

// Link adds a local SDK to the program (`pulumi package add`), as Pulumi's host does: a
// replace directive in go.mod from the SDK's module path to its directory (the CLI then
// runs InstallDependencies), and the import lines to use.
func (h *host) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	linked, sdkPath, err := hostgen.LinkedPackages(ctx, req, map[string]schema.Language{"go": gogen.Importer})
	if err != nil {
		return nil, err
	}
	replaces := map[string]string{}
	if sdkPath != "" {
		replaces["github.com/pulumi/pulumi/sdk/v3"] = sdkPath
	}
	var imports strings.Builder
	for _, l := range linked {
		info, _ := l.Package.Language["go"].(gogen.GoPackageInfo)
		modulePath, importPath := info.ModulePath, info.ImportBasePath
		if modulePath == "" && importPath != "" {
			modulePath = path.Dir(importPath)
		}
		if modulePath == "" {
			modulePath = gogen.ExtractModulePath(l.Package.Reference())
		}
		if importPath == "" {
			importPath = gogen.ExtractImportBasePath(l.Package.Reference())
		}
		replaces[modulePath] = l.Path
		fmt.Fprintf(&imports, "    %q\n", importPath)
	}
	gomodFile := filepath.Join(req.GetInfo().GetProgramDirectory(), "go.mod")
	text, err := os.ReadFile(gomodFile)
	if err != nil {
		return nil, fmt.Errorf("pulumi package add: the Go program has no go.mod to add the SDK to: %w", err)
	}
	gomod, err := modfile.Parse(gomodFile, text, nil)
	if err != nil {
		return nil, err
	}
	for module, dir := range replaces {
		// A replace directive's directory must start with ./ (https://go.dev/ref/mod#go-mod-file-replace).
		if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") {
			dir = "./" + dir
		}
		if err := gomod.AddReplace(module, "", dir, ""); err != nil {
			return nil, fmt.Errorf("could not add the replace directive for %s: %w", module, err)
		}
	}
	out, err := gomod.Format()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(gomodFile, out, 0o644); err != nil {
		return nil, err
	}
	if len(linked) == 0 {
		// Nothing to import (`pulumi convert` links the packages the program uses from a local SDK only, none
		// when they come from plugins): no instructions, rather than an empty `import ( )`.
		return &pulumirpc.LinkResponse{}, nil
	}
	what := "the SDK"
	if len(linked) > 1 {
		what = "the SDKs"
	}
	return &pulumirpc.LinkResponse{ImportInstructions: fmt.Sprintf("You can import %s in your Go code with:\n\n  import (\n%s  )\n", what, imports.String())}, nil
}

// InstallDependencies is `pulumi install` (and the end of `pulumi package add`): `go mod
// tidy` in the program's directory, as Pulumi's host runs it, its output streamed to the CLI.
func (h *host) InstallDependencies(req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.GetIsTerminal())
	if err != nil {
		return err
	}
	defer closer.Close()
	fmt.Fprintln(stdout, "Installing dependencies...")
	cmd := exec.CommandContext(server.Context(), "go", "mod", "tidy", "-compat=1.18")
	cmd.Dir = req.GetInfo().GetProgramDirectory()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pulumi install: `go mod tidy` in %s failed (%v): see its output above", cmd.Dir, err)
	}
	fmt.Fprintln(stdout, "Finished installing dependencies")
	return closer.Close()
}

func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

// GetRequiredPackages lists the resource plugins of the modules the program's go.mod
// requires, each from its pulumi-plugin.json (name, version, `server`), as Pulumi's host
// does (GetRequiredPackages, readPulumiPluginJSON, getPackage): the CLI installs a missing
// plugin from its `server` before a run or an import (`pulumi import` runs no program, so
// this is how it learns where the plugin is). As Pulumi's, it is lenient: a program outside
// a module, or a module that cannot be downloaded, lists nothing.
func (h *host) GetRequiredPackages(ctx context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	none := &pulumirpc.GetRequiredPackagesResponse{}
	dir := req.GetInfo().GetProgramDirectory()
	list := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.GoMod}}")
	list.Dir, list.Env = dir, append(os.Environ(), "GOWORK=off")
	out, err := list.Output()
	gomodFile := strings.TrimSpace(string(out))
	if err != nil || gomodFile == "" {
		return none, nil
	}
	text, err := os.ReadFile(gomodFile)
	if err != nil {
		return none, nil
	}
	gomod, err := modfile.Parse("go.mod", text, nil)
	if err != nil || len(gomod.Require) == 0 {
		return none, nil
	}
	args := []string{"mod", "download", "-json"}
	for _, r := range gomod.Require {
		args = append(args, r.Mod.Path)
	}
	download := exec.CommandContext(ctx, "go", args...)
	download.Dir = filepath.Dir(gomodFile)
	modules, _ := download.Output() // a module that cannot be downloaded is reported in its entry; the others still count
	packages := []*pulumirpc.PackageDependency{}
	for dec := json.NewDecoder(bytes.NewReader(modules)); dec.More(); {
		var m struct{ Path, Version, Dir string }
		if dec.Decode(&m) != nil {
			break
		}
		if pkg := requiredPackage(m.Path, m.Version, m.Dir); pkg != nil {
			packages = append(packages, pkg)
		}
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// requiredPackage is the resource plugin of the module in dir, from the first
// pulumi-plugin.json of Pulumi's lookup path (dir, dir/go, dir/go/*, dir/*), or nil.
func requiredPackage(modulePath, moduleVersion, dir string) *pulumirpc.PackageDependency {
	if dir == "" {
		return nil
	}
	paths := []string{filepath.Join(dir, "pulumi-plugin.json"), filepath.Join(dir, "go", "pulumi-plugin.json")}
	for _, pattern := range []string{filepath.Join(dir, "go", "*", "pulumi-plugin.json"), filepath.Join(dir, "*", "pulumi-plugin.json")} {
		found, _ := filepath.Glob(pattern)
		paths = append(paths, found...)
	}
	for _, p := range paths {
		info, err := plugin.LoadPulumiPluginJSON(p)
		if err != nil {
			continue
		}
		if !info.Resource {
			return nil
		}
		name, version := info.Name, moduleVersion
		if name == "" {
			// github.com/pulumi/pulumi-aws/sdk/... => aws, as Pulumi's host names it.
			parts := strings.Split(modulePath, "/")
			if len(parts) < 3 || !strings.Contains(parts[2], "-") {
				return nil
			}
			name = strings.SplitN(parts[2], "-", 2)[1]
		}
		if info.Version != "" {
			version = info.Version
		}
		if !strings.HasPrefix(version, "v") {
			version = "v" + version
		}
		return &pulumirpc.PackageDependency{Name: name, Version: version, Kind: "resource", Server: info.Server}
	}
	return nil
}

func (h *host) GetProgramDependencies(context.Context, *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	gobin, _ := exec.LookPath("go")
	out, _ := exec.Command("go", "env", "GOVERSION").Output()
	return &pulumirpc.AboutResponse{Executable: gobin, Version: strings.TrimSpace(string(out))}, nil
}

// Cancel interrupts the program this host runs: the CLI calls it once, to stop the operation (the first Ctrl-C).
func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.cancel()
	return &emptypb.Empty{}, nil
}

func (h *host) RuntimeOptionsPrompts(context.Context, *pulumirpc.RuntimeOptionsRequest) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// lacks is the answer to a call this host does not serve: one line naming the command, with
// the UNIMPLEMENTED code the CLI knows (Pulumi's own Go host is refused by the Go module proxy).
func lacks(command string) error {
	return status.Errorf(codes.Unimplemented, "%s is not supported by pulumi-svc's Go language host", command)
}

func (h *host) Pack(context.Context, *pulumirpc.PackRequest) (*pulumirpc.PackResponse, error) {
	return nil, lacks("`pulumi package pack-sdk` for Go")
}

func (h *host) RunPlugin(*pulumirpc.RunPluginRequest, pulumirpc.LanguageRuntime_RunPluginServer) error {
	return lacks("running a plugin or policy pack written in Go")
}

func (h *host) Template(context.Context, *pulumirpc.TemplateRequest) (*pulumirpc.TemplateResponse, error) {
	return nil, lacks("`pulumi new` with a Go template")
}
