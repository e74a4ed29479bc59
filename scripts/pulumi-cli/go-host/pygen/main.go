// Command pulumi-svc-python-gen is the Go half of our Python language host
// (../../python-host.ts): the calls Pulumi's Python host answers with Pulumi's own Go code
// (github.com/pulumi/pulumi/pkg/v3/codegen/python, sdk/v3/python/toolchain), which the Go
// module proxy serves while it refuses the module of Pulumi's Python host. The host hands a
// call over as it came, named by the first argument, with the serialized request on stdin:
//
//	package   GeneratePackageRequest -> GeneratePackageResponse  `pulumi package gen-sdk`
//	program   GenerateProgramRequest -> GenerateProgramResponse  `pulumi import` (its code)
//	project   GenerateProjectRequest -> GenerateProjectResponse  `pulumi convert`
//	link      LinkRequest -> LinkResponse                        `pulumi package add`
//	install   InstallDependenciesRequest -> (output)              `pulumi install`
//
// and passes back what this writes on stdout: the serialized response, or for `install`
// the output of pip, which the host streams to the CLI. A failure is one line on stderr
// and exit code 1. Each call does what Pulumi's Python host does (its main.go), for the pip
// toolchain, the only one our host runs programs with.
//
// It is a package of the Go host's module (../go.mod), beside the code both hosts share (../hostgen).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/protobuf/proto"

	"pulumi-svc/pulumi-cli/go-host/hostgen"
)

func main() {
	if err := serve(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-svc-python-gen: %v\n", err)
		os.Exit(1)
	}
}

func serve(args []string, in io.Reader, out io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: pulumi-svc-python-gen package|program|project|link|install < request")
	}
	raw, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	ctx := context.Background()
	var res proto.Message
	switch args[0] {
	case "package":
		req := &pulumirpc.GeneratePackageRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			return err
		}
		res, err = hostgen.GeneratePackage(req, func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
			return python.GeneratePackage("pulumi-language-python", pkg, req.GetExtraFiles(), loader)
		})
	case "program":
		req := &pulumirpc.GenerateProgramRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			return err
		}
		res, err = hostgen.GenerateProgram(req, python.GenerateProgram)
	case "project":
		req := &pulumirpc.GenerateProjectRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			return err
		}
		res, err = hostgen.GenerateProject(req, func(dir string, project workspace.Project, program *pcl.Program, localDependencies map[string]string) error {
			// No type checker, the pip toolchain: the only one this host runs programs with.
			return python.GenerateProject(dir, project, program, localDependencies, "", "pip")
		})
	case "link":
		req := &pulumirpc.LinkRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			return err
		}
		res, err = link(ctx, req)
	case "install":
		req := &pulumirpc.InstallDependenciesRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			return err
		}
		return install(ctx, req, out, os.Stderr)
	default:
		return fmt.Errorf("unknown call %q (package, program, project, link or install)", args[0])
	}
	if err != nil {
		return err
	}
	encoded, err := proto.Marshal(res)
	if err != nil {
		return err
	}
	_, err = out.Write(encoded)
	return err
}

// pip is the program's toolchain from its runtime options, as our host reads them to run it
// (python-host.ts, interpreter): pip, in the `virtualenv` option's environment or the ambient Python.
func pip(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	options := info.GetOptions().AsMap()
	if tc, ok := options["toolchain"]; ok && tc != "pip" {
		return nil, fmt.Errorf("runtime option toolchain: %v is not supported by this Python host (only \"pip\", with a virtualenv)", tc)
	}
	venv, _ := options["virtualenv"].(string)
	return toolchain.ResolveToolchain(toolchain.PythonOptions{
		Root:       info.GetRootDirectory(),
		ProgramDir: info.GetProgramDirectory(),
		Virtualenv: venv,
		Toolchain:  toolchain.Pip,
	})
}

// link adds local SDKs to the program's requirements.txt, as Pulumi's host does (the CLI
// then asks for InstallDependencies), and says how to import them.
func link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	tc, err := pip(req.GetInfo())
	if err != nil {
		return nil, err
	}
	linked, sdkPath, err := hostgen.LinkedPackages(ctx, req, map[string]schema.Language{"python": python.Importer})
	if err != nil {
		return nil, err
	}
	packages := map[string]string{}
	if sdkPath != "" {
		packages["pulumi"] = sdkPath
	}
	var imports strings.Builder
	for _, l := range linked {
		packageName := ""
		if info, ok := l.Package.Language["python"].(python.PackageInfo); ok {
			packageName = info.PackageName
		}
		importName := packageName
		if importName == "" {
			importName = strings.ReplaceAll(l.Package.Name, "-", "_")
		}
		if packageName == "" {
			packageName = python.PyPack(l.Package.Namespace, l.Package.Name)
		}
		packages[packageName] = l.Path
		fmt.Fprintf(&imports, "  import %s as %s\n", packageName, importName)
	}
	if err := tc.LinkPackages(ctx, packages); err != nil {
		return nil, fmt.Errorf("linking packages: %w", err)
	}
	if len(linked) == 0 {
		// Nothing to import (`pulumi convert` of a program whose packages come from plugins): no instructions.
		return &pulumirpc.LinkResponse{}, nil
	}
	what := "the SDK"
	if len(linked) > 1 {
		what = "the SDKs"
	}
	return &pulumirpc.LinkResponse{ImportInstructions: fmt.Sprintf("You can import %s in your Python code with:\n\n%s", what, imports.String())}, nil
}

// install is `pulumi install`: pip's InstallDependencies, as Pulumi's host runs it (the
// virtualenv created when the option names one, pip, setuptools and wheel updated, then
// requirements.txt installed), its output on stdout and stderr.
func install(ctx context.Context, req *pulumirpc.InstallDependenciesRequest, stdout, stderr io.Writer) error {
	tc, err := pip(req.GetInfo())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Installing dependencies...")
	if err := tc.InstallDependencies(ctx, req.GetInfo().GetProgramDirectory(), false, true, stdout, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Finished installing dependencies")
	return nil
}
