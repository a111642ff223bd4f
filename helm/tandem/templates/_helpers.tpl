{{/* Chart name. */}}
{{- define "tandem.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-tandem unless the release name already says tandem. */}}
{{- define "tandem.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tandem.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tandem.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tandem.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "tandem.labels" -}}
helm.sh/chart: {{ include "tandem.chart" . }}
{{ include "tandem.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tandem
{{- end }}

{{- define "tandem.workerSelectorLabels" -}}
{{ include "tandem.selectorLabels" . }}
app.kubernetes.io/component: worker
{{- end }}

{{- define "tandem.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tandem.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "tandem.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The worker's HTTP port (/metrics, /healthz, /readyz): TANDEM_HTTP_PORT, default 9090. */}}
{{- define "tandem.httpPort" -}}
{{- default "9090" (toString .Values.config.TANDEM_HTTP_PORT) | int }}
{{- end }}

{{/* Namespace of the watchers' Lease: TANDEM_LEASE_NAMESPACE, default the release namespace. */}}
{{- define "tandem.leaseNamespace" -}}
{{- default .Release.Namespace .Values.config.TANDEM_LEASE_NAMESPACE }}
{{- end }}

{{/* Secret with the worker's slurmrestd credential: this chart's JWT key with slurm.enabled, else the user's. */}}
{{- define "tandem.slurmAuthSecret" -}}
{{- if .Values.slurm.enabled }}
{{- include "tandem.slurm.jwtSecretName" . }}
{{- else }}
{{- .Values.slurmAuth.existingSecret }}
{{- end }}
{{- end }}

{{/* slurmAuth as the worker uses it: with slurm.enabled, the JWT key of this chart's Slurm. */}}
{{- define "tandem.slurmAuthType" -}}
{{- if .Values.slurm.enabled }}jwtKey{{ else }}{{ .Values.slurmAuth.type }}{{ end }}
{{- end }}
{{- define "tandem.slurmAuthKey" -}}
{{- if .Values.slurm.enabled }}jwt_hs256.key{{ else }}{{ .Values.slurmAuth.key }}{{ end }}
{{- end }}

{{/* slurmrestd URL: this chart's slurmrestd with slurm.enabled, else config.SLURM_REST_URL. */}}
{{- define "tandem.slurmRestUrl" -}}
{{- if .Values.slurm.enabled }}
{{- printf "http://%s-slurmrestd.%s.svc:%d" (include "tandem.fullname" .) .Release.Namespace (int .Values.slurm.restd.port) }}
{{- else if .Values.config.SLURM_REST_URL }}
{{- .Values.config.SLURM_REST_URL }}
{{- else }}
{{- fail "config.SLURM_REST_URL is required (the slurmrestd the worker talks to), or set slurm.enabled=true" }}
{{- end }}
{{- end }}

{{- define "tandem.slurm.jwtSecretName" -}}
{{- default (printf "%s-slurm-jwt" (include "tandem.fullname" .)) .Values.slurm.jwt.existingSecret }}
{{- end }}

{{- define "tandem.slurm.mungeSecretName" -}}
{{- default (printf "%s-slurm-munge" (include "tandem.fullname" .)) .Values.slurm.munge.existingSecret }}
{{- end }}

{{/* slurmctld's StatefulSet and headless Service share this name; its pod is <name>-0. */}}
{{- define "tandem.slurm.ctld" -}}
{{- printf "%s-slurmctld" (include "tandem.fullname" .) }}
{{- end }}

{{/* The munged sidecar every Slurm pod here runs (the daemons authenticate with munge). */}}
{{- define "tandem.slurm.munged" -}}
- name: munged
  image: {{ .Values.slurm.images.slurmctld }}
  imagePullPolicy: {{ .Values.slurm.imagePullPolicy }}
  command: ["munged", "--foreground", "--key-file=/etc/munge-key/munge.key"]
  volumeMounts:
    - name: munge-key
      mountPath: /etc/munge-key
      readOnly: true
    - name: munge-run
      mountPath: /run/munge
{{- end }}

{{/* Volumes every Slurm pod here has: slurm.conf and friends, the munge key and socket. */}}
{{- define "tandem.slurm.volumes" -}}
{{- if .Values.config.TANDEM_TOPOLOGY }}
# slurm.conf and friends plus the topology file the worker publishes (ConfigMap tandem-topology,
# optional: slurmctld starts before the first publication). A projected volume, not a subPath
# mount, so the kubelet refreshes the file when the worker rewrites it (docs/topology.md).
- name: slurm-conf
  projected:
    defaultMode: 0755
    sources:
      - configMap:
          name: {{ include "tandem.fullname" . }}-slurm-conf
      - configMap:
          name: tandem-topology
          optional: true
          items:
            - key: {{ include "tandem.slurm.topologyFile" . }}
              path: {{ include "tandem.slurm.topologyFile" . }}
{{- else }}
- name: slurm-conf
  configMap:
    name: {{ include "tandem.fullname" . }}-slurm-conf
    defaultMode: 0755
{{- end }}
- name: munge-key
  secret:
    secretName: {{ include "tandem.slurm.mungeSecretName" . }}
    defaultMode: 0400
- name: munge-run
  emptyDir: {}
{{- end }}

{{- define "tandem.slurm.mounts" -}}
- name: slurm-conf
  mountPath: /etc/slurm
  readOnly: true
- name: munge-run
  mountPath: /run/munge
{{- end }}

{{/* slurm.accounting.qos as files/slurm-accounting.sh reads it: name:priority:preempted,... */}}
{{- define "tandem.slurm.accountingQos" -}}
{{- $out := list -}}
{{- range .Values.slurm.accounting.qos -}}
{{- $out = append $out (printf "%s:%d:%s" (required "slurm.accounting.qos[].name is required" .name) (int (.priority | default 0)) (join "," (.preempt | default list))) -}}
{{- end -}}
{{- join " " $out -}}
{{- end }}

{{/* slurm.accounting.accounts as files/slurm-accounting.sh reads them: name:parent ... */}}
{{- define "tandem.slurm.accountingAccounts" -}}
{{- $out := list -}}
{{- range .Values.slurm.accounting.accounts -}}
{{- $out = append $out (printf "%s:%s" (required "slurm.accounting.accounts[].name is required" .name) (.parent | default "")) -}}
{{- end -}}
{{- join " " $out -}}
{{- end }}

{{/* slurm.accounting.users as files/slurm-accounting.sh reads them: name:default:account,... */}}
{{- define "tandem.slurm.accountingUsers" -}}
{{- $out := list -}}
{{- range .Values.slurm.accounting.users -}}
{{- $out = append $out (printf "%s:%s:%s" (required "slurm.accounting.users[].name is required" .name) (required "slurm.accounting.users[].defaultAccount is required" .defaultAccount) (join "," (.accounts | default (list .defaultAccount)))) -}}
{{- end -}}
{{- join " " $out -}}
{{- end }}

{{/* The topology file slurmctld reads: topology.yaml (Slurm 25.05+) or topology.conf. */}}
{{- define "tandem.slurm.topologyFile" -}}
{{- $f := .Values.slurm.topology.file | default "yaml" -}}
{{- if eq $f "yaml" -}}topology.yaml{{- else if eq $f "conf" -}}topology.conf{{- else -}}{{- fail "slurm.topology.file must be yaml or conf" -}}{{- end -}}
{{- end }}
