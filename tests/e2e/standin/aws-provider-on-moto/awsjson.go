package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

// jsonRPC calls an AWS JSON 1.1 protocol API (a SigV4-signed POST with an X-Amz-Target header)
// directly: the stand-in reads SSM parameters, and, as with EC2 (ec2.go), linking the generated
// SDK client for a single call is not worth its build time. The requests are the ones the SDK
// sends.
type jsonRPC struct {
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	http     *http.Client
	signer   *v4.Signer
	service  string // the signing name, e.g. "ssm"
	target   string // the X-Amz-Target prefix, e.g. "AmazonSSM"
	label    string // the service as the SDK names it in errors, e.g. "SSM"
}

// jsonAPIError is an error answer, read the way the SDK reads it (smithy.APIError), and printed as
// the SDK prints an operation error.
type jsonAPIError struct {
	service, op string
	status      int
	requestID   string
	Code        string
	Message     string
}

func (e *jsonAPIError) Error() string {
	return fmt.Sprintf("operation error %s: %s, https response error StatusCode: %d, RequestID: %s, %s: %s",
		e.service, e.op, e.status, e.requestID, e.Code, e.Message)
}
func (e *jsonAPIError) ErrorCode() string             { return e.Code }
func (e *jsonAPIError) ErrorMessage() string          { return e.Message }
func (e *jsonAPIError) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

func (q *jsonRPC) call(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, q.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", q.target+"."+op)
	creds, err := q.creds.Retrieve(ctx)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	if err := q.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), q.service, q.region, time.Now()); err != nil {
		return err
	}
	resp, err := q.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", q.label, op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &e)
		code := e.Type[strings.LastIndex(e.Type, "#")+1:]
		if code == "" {
			return fmt.Errorf("operation error %s: %s, https response error StatusCode: %d: %s", q.label, op, resp.StatusCode, strings.TrimSpace(string(data)))
		}
		return &jsonAPIError{service: q.label, op: op, status: resp.StatusCode, requestID: resp.Header.Get("x-amzn-RequestId"), Code: code, Message: e.Message}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// ssmParameter is GetParameter's answer.
type ssmParameter struct {
	ARN              string  `json:"ARN"`
	DataType         string  `json:"DataType"`
	LastModifiedDate float64 `json:"LastModifiedDate"`
	Name             string  `json:"Name"`
	Type             string  `json:"Type"`
	Value            string  `json:"Value"`
	Version          int     `json:"Version"`
}

func (q *jsonRPC) getParameter(ctx context.Context, name string, withDecryption bool) (*ssmParameter, error) {
	var out struct {
		Parameter ssmParameter `json:"Parameter"`
	}
	err := q.call(ctx, "GetParameter", map[string]any{"Name": name, "WithDecryption": withDecryption}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Parameter, nil
}
