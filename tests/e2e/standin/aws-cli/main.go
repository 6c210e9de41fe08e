// Command aws is a stand-in for the AWS CLI's `aws eks get-token` (test only).
//
// The lab has no AWS CLI, and kubeconfigs of EKS clusters authenticate with it (examples/java's
// kubernetes provider: `aws eks get-token --cluster-name <name> --region <region>`, as `aws eks
// update-kubeconfig` writes). tests/e2e puts this binary, named aws, first on the engine's PATH
// for such a program. It answers only that command, with an ExecCredential
// (client.authentication.k8s.io/v1beta1) carrying the credentials of the world's kubeconfig
// ($STANDIN_EKS_KUBECONFIG, the API server the aws stand-in reports as every cluster's endpoint):
// its token, or its client certificate and key. Real `aws eks get-token` answers a presigned STS
// token that EKS's authenticator verifies; the world's API server knows only its own credentials.
// Anything else is refused, naming this stand-in.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/standin/worldkubeconfig"
)

const standIn = "stand-in for the AWS CLI's `aws eks get-token` (test only)"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "aws (%s): %v\n", standIn, err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 2 || args[0] != "eks" || args[1] != "get-token" {
		return fmt.Errorf("refused %q: only `aws eks get-token --cluster-name <name> --region <region>` is answered", args)
	}
	flags := map[string]string{}
	for rest := args[2:]; len(rest) > 0; rest = rest[2:] {
		if len(rest) < 2 || (rest[0] != "--cluster-name" && rest[0] != "--region") {
			return fmt.Errorf("refused %q: only --cluster-name and --region are answered", args)
		}
		flags[rest[0]] = rest[1]
	}
	if flags["--cluster-name"] == "" || flags["--region"] == "" {
		return fmt.Errorf("refused %q: --cluster-name and --region are required here", args)
	}
	status, err := worldCredentials(os.Getenv("STANDIN_EKS_KUBECONFIG"))
	if err != nil {
		return err
	}
	// As the AWS CLI: a token valid for 14 minutes.
	status["expirationTimestamp"] = time.Now().UTC().Add(14 * time.Minute).Format(time.RFC3339)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1beta1", "spec": map[string]any{}, "status": status,
	})
}

// worldCredentials are the ExecCredential status of the user of the world's kubeconfig: its
// token, else its client certificate and key.
func worldCredentials(path string) (map[string]any, error) {
	user, err := worldkubeconfig.User(path, standIn)
	if err != nil {
		return nil, err
	}
	field := func(k string) string { s, _ := user[k].(string); return s }
	if token := field("token"); token != "" {
		return map[string]any{"token": token}, nil
	}
	cert, key := pemOf(field("client-certificate-data"), field("client-certificate")), pemOf(field("client-key-data"), field("client-key"))
	if cert == "" || key == "" {
		return nil, fmt.Errorf("STANDIN_EKS_KUBECONFIG %s: its user has neither a token nor a client certificate and key", path)
	}
	return map[string]any{"clientCertificateData": cert, "clientKeyData": key}, nil
}

// pemOf is a PEM document from a kubeconfig's base64 data, else from the file it names.
func pemOf(data, file string) string {
	if data != "" {
		if b, err := base64.StdEncoding.DecodeString(data); err == nil {
			return string(b)
		}
	}
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			return string(b)
		}
	}
	return ""
}
