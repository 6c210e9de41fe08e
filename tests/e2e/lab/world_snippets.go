package lab

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The README snippets' world (tests/e2e/snippets_test.go): what the README's programs ask for, installed
// beside what every world has. The snippets import the real @pulumi/aws 7.48.0, @pulumi/awsx 3.9.0,
// @pulumi/eks 4.3.0 and @pulumi/kubernetes 4.34.2 (npm; examples/typescript/package-lock.json) and
// pulumi-aws, pulumi-awsx, pulumi-eks and pulumi-kubernetes of the same versions (PyPI;
// tests/docs-code/python/constraints.txt), which request those plugin versions.
const (
	snippetAWSVersion        = "7.48.0" // the aws stand-in, answering as pulumi-aws 7.48.0 (standin/aws-provider-on-moto/pulumi_aws_versions.go)
	snippetAWSXVersion       = "3.9.0"  // the awsx stand-in (standin/awsx-component-provider)
	snippetEKSVersion        = "4.3.0"  // the eks stand-in (standin/eks-component-provider)
	snippetKubernetesVersion = "4.34.2" // the real pulumi-kubernetes (KubernetesProviderVersion), under the snippets' version
	// eksChildKubernetesVersion is what pulumi-eks 4.3.0 registers its kubernetes provider at (its
	// @pulumi/kubernetes dependency): the real provider is installed under it too.
	eksChildKubernetesVersion = "4.19.0"

	// The Registry page's Go program (examples/go's go.mod) imports pulumi-eks/sdk/v3 v3.9.1 and
	// pulumi-awsx/sdk/v2 v2.22.0, whose plugins the same stand-ins answer as; its aws and
	// kubernetes SDKs (v6.83.2, v4.30.0) ask for what every world has (AWSVersion,
	// KubernetesVersion).
	goExampleEKSVersion  = "3.9.1"
	goExampleAWSXVersion = "2.22.0"

	// examples/java's com.pulumi:aws 6.83.0 and com.pulumi:kubernetes 4.0.0 (their jars'
	// plugin.json) ask for these: the aws stand-in answers as 6.83.0 (pulumi_aws_versions.go), the
	// real pulumi-kubernetes is installed under 4.0.0 too.
	javaExampleAWSVersion        = "6.83.0"
	javaExampleKubernetesVersion = "4.0.0"
)

// AWSCLI is the AWS CLI stand-in (standin/aws-cli: `aws eks get-token` only), alone in its
// directory, which a program's PATH can lead with.
func (s StandIns) AWSCLI() string {
	return filepath.Join(filepath.Dir(s.AWS), "aws-cli-standin", "aws")
}

// EKS is the eks stand-in's binary, built beside the aws stand-in.
func (s StandIns) EKS() string { return filepath.Join(filepath.Dir(s.AWS), "pulumi-resource-eks") }

// AWSX is the awsx stand-in's binary, built beside the aws stand-in.
func (s StandIns) AWSX() string { return filepath.Join(filepath.Dir(s.AWS), "pulumi-resource-awsx") }

// PrepareSnippets makes w a world for the README's programs: it installs the eks stand-in as eks
// 4.3.0 and 3.9.1, the awsx stand-in as awsx 3.9.0 and 2.22.0 (the Registry page's Go program's;
// its Vpc's children and getAvailabilityZones go to the program's aws provider), the aws stand-in
// also as aws 7.48.0 and 6.83.0 (examples/java's), and the real pulumi-kubernetes also as 4.34.2
// (the snippets'), 4.19.0 (pulumi-eks 4.3.0's), 4.0.0 (examples/java's) and 4.25.0 (its own, for
// schema references); tells the eks stand-in the world's kubeconfig (STANDIN_EKS_KUBECONFIG: its
// cluster's kubeconfig carries those credentials); and stands public.ecr.aws in (startPublicECR):
// the snippets leave chartRepository at its default, oci://public.ecr.aws/karpenter, which this
// machine cannot reach. Stop that stand-in with its Stop.
func (w *World) PrepareSnippets(standIns StandIns, tools Tools) (*PublicECR, error) {
	e := w.Engine
	for _, p := range []struct{ name, version, file string }{
		{"eks", snippetEKSVersion, standIns.EKS()},
		{"eks", goExampleEKSVersion, standIns.EKS()},
		{"awsx", snippetAWSXVersion, standIns.AWSX()},
		{"awsx", goExampleAWSXVersion, standIns.AWSX()},
		{"aws", snippetAWSVersion, standIns.AWS},
		{"aws", javaExampleAWSVersion, standIns.AWS},
		{"kubernetes", snippetKubernetesVersion, tools.KubernetesProvider},
		{"kubernetes", javaExampleKubernetesVersion, tools.KubernetesProvider},
		{"kubernetes", eksChildKubernetesVersion, tools.KubernetesProvider},
		// Its own version, which its schema reports: the eks stand-in's schema refers to it.
		{"kubernetes", KubernetesProviderVersion, tools.KubernetesProvider},
	} {
		if err := e.InstallPlugin("resource", p.name, p.version, p.file); err != nil {
			return nil, err
		}
	}
	e.SetEnv("STANDIN_EKS_KUBECONFIG", w.Kubeconfig)
	ecr, err := startPublicECR(w.Registry.Host, w.Registry.Username, w.Registry.Password, w.Registry.CAFile, filepath.Join(w.dir, "public-ecr"))
	if err != nil {
		return nil, err
	}
	// The machine trusts both CAs (Go reads every certificate of SSL_CERT_FILE) and reaches
	// public.ecr.aws, only it, through the proxy; loopback stays direct (NO_PROXY).
	e.SetEnv("SSL_CERT_FILE", ecr.CABundle)
	e.SetEnv("HTTPS_PROXY", ecr.ProxyURL)
	e.SetEnv("HTTP_PROXY", ecr.ProxyURL)
	return ecr, nil
}

// PublicECRHost is the registry the component pulls its charts from by default.
const PublicECRHost = "public.ecr.aws"

// PublicECR stands in for public.ecr.aws: an HTTP proxy that lets CONNECT public.ecr.aws:443
// through, to a TLS server with a certificate for public.ecr.aws (of a CA of its own, which
// CABundle adds to the world's), which answers from the world's registry (anonymously, as public
// ECR does: it adds the registry's credentials). The world's registry holds the same charts under
// the same paths (karpenter/karpenter, karpenter/karpenter-crd). Every other destination is
// refused, so nothing else leaves the machine.
type PublicECR struct {
	ProxyURL string // http://127.0.0.1:<port>: HTTPS_PROXY
	CABundle string // the world registry's CA and this one's: SSL_CERT_FILE

	mu       sync.Mutex
	requests []string // "GET /v2/karpenter/karpenter/manifests/1.15.2", in order
	refused  []string // CONNECT targets (or proxied URLs) refused
	proxy    *http.Server
	front    *http.Server
}

// Requests are the requests public.ecr.aws answered; Refused, what the proxy refused.
func (p *PublicECR) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}
func (p *PublicECR) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

// startPublicECR starts the stand-in in front of the registry at host (its user, password and CA
// file), writing its CA bundle under dir.
func startPublicECR(host, user, password, caFile, dir string) (*PublicECR, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	registryCA, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(registryCA) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	caPEM, cert, err := certificateFor(PublicECRHost)
	if err != nil {
		return nil, err
	}
	p := &PublicECR{CABundle: filepath.Join(dir, "ca-bundle.crt")}
	if err := os.WriteFile(p.CABundle, append(append(registryCA, '\n'), caPEM...), 0o600); err != nil {
		return nil, err
	}

	target := &url.URL{Scheme: "https", Host: host}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = host
			r.Out.SetBasicAuth(user, password)
		},
		Transport: &http.Transport{Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	frontLis, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		return nil, err
	}
	p.front = &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests = append(p.requests, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		rp.ServeHTTP(rw, r)
	})}
	go func() { _ = p.front.Serve(frontLis) }()

	proxyLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		p.Stop()
		return nil, err
	}
	p.ProxyURL = "http://" + proxyLis.Addr().String()
	frontAddr := frontLis.Addr().String()
	p.proxy = &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != PublicECRHost+":443" {
			p.mu.Lock()
			p.refused = append(p.refused, r.Method+" "+r.Host+r.URL.Path)
			p.mu.Unlock()
			http.Error(rw, fmt.Sprintf("the test machine reaches only %s (a stand-in), not %s", PublicECRHost, r.Host), http.StatusForbidden)
			return
		}
		upstream, err := net.DialTimeout("tcp", frontAddr, 10*time.Second)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		conn, buf, err := http.NewResponseController(rw).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		go func() {
			_, _ = io.Copy(upstream, buf) // what the client sent after the request line, then the rest
			upstream.Close()
		}()
		_, _ = io.Copy(conn, upstream)
		conn.Close()
	})}
	go func() { _ = p.proxy.Serve(proxyLis) }()
	return p, nil
}

// Stop stops the proxy and the front server. Safe on nil.
func (p *PublicECR) Stop() {
	if p == nil {
		return
	}
	for _, s := range []*http.Server{p.proxy, p.front} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// certificateFor makes a CA and a serving certificate it signs for host; it returns the CA's PEM.
func certificateFor(host string) ([]byte, tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pulumi-karpenter test stand-in for " + host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	var caPEM bytes.Buffer
	if err := pem.Encode(&caPEM, &pem.Block{Type: "CERTIFICATE", Bytes: caDER}); err != nil {
		return nil, tls.Certificate{}, err
	}
	if len(leafDER) == 0 {
		return nil, tls.Certificate{}, errors.New("no certificate")
	}
	return caPEM.Bytes(), tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}, nil
}
