{{/* vim: set filetype=mustache: */}}

{{- define "dominoes.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Resource name prefix; leaves room for the longest suffix ("-table-service" / "-migrate-env"). */}}
{{- define "dominoes.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "dominoes.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels. Call with (dict "root" $ "component" "gateway"). */}}
{{- define "dominoes.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dominoes.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* All labels. Call with (dict "root" $ "component" "gateway"). */}}
{{- define "dominoes.labels" -}}
helm.sh/chart: {{ include "dominoes.chart" .root }}
{{ include "dominoes.selectorLabels" . }}
app.kubernetes.io/part-of: dominoes
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The services, as values key -> component name. */}}
{{- define "dominoes.components" -}}
gateway: gateway
tableService: table-service
timerService: timer-service
{{- end -}}

{{- define "dominoes.image" -}}
{{- $img := .Values.image -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository (default .Chart.AppVersion $img.tag | toString) -}}
{{- end -}}
{{- end -}}

{{- define "dominoes.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dominoes.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "dominoes.secretName" -}}
{{- include "dominoes.fullname" . -}}
{{- end -}}

{{- define "dominoes.migrateSecretName" -}}
{{- printf "%s-migrate-env" (include "dominoes.fullname" .) -}}
{{- end -}}

{{- define "dominoes.postgresHost" -}}
{{- printf "%s-postgres" (include "dominoes.fullname" .) -}}
{{- end -}}

{{- define "dominoes.redisHost" -}}
{{- printf "%s-redis" (include "dominoes.fullname" .) -}}
{{- end -}}

{{/*
Where DATABASE_URL comes from:
  chart    - the chart's Secret (bundled mode, postgres.external.url, or the first of postgres.external.urls)
  parts    - built in the pod from postgres.external.host/port/user/database + passwordSecret
  existing - secrets.existingSecret
  none     - not set: postgres.external.urlsSecret's DATABASE_URLS names every database (the home one first)
*/}}
{{- define "dominoes.databaseSource" -}}
{{- $pg := .Values.postgres -}}
{{- if eq $pg.mode "bundled" -}}chart
{{- else if $pg.external.url -}}chart
{{- else if $pg.external.host -}}parts
{{- else if $pg.external.urls -}}chart
{{- else if .Values.secrets.existingSecret -}}existing
{{- else if $pg.external.urlsSecret.name -}}none
{{- else -}}
{{- fail "postgres.mode is external: set postgres.external.url, postgres.external.host, or secrets.existingSecret (holding DATABASE_URL); or several databases in postgres.external.urls or postgres.external.urlsSecret" -}}
{{- end -}}
{{- end -}}

{{- define "dominoes.redisSource" -}}
{{- $r := .Values.redis -}}
{{- if eq $r.mode "bundled" -}}chart
{{- else if $r.external.url -}}chart
{{- else if $r.external.host -}}parts
{{- else if .Values.secrets.existingSecret -}}existing
{{- else -}}
{{- fail "redis.mode is external: set redis.external.url, redis.external.host, or secrets.existingSecret (holding REDIS_URL)" -}}
{{- end -}}
{{- end -}}

{{/*
The values of the chart-made Secret, computed once per render (random ones are reused from the Secret of a
previous release when it exists, so upgrades keep them). Returns YAML; use with fromYaml.
*/}}
{{- define "dominoes.secretData" -}}
{{- if not (hasKey .Values "__dominoesSecretData") -}}
{{- $previous := dict -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "dominoes.secretName" .) -}}
{{- if and $existing (hasKey $existing "data") -}}
{{- $previous = $existing.data -}}
{{- end -}}
{{- $data := dict -}}
{{- if not .Values.secrets.existingSecret -}}
{{- $token := .Values.secrets.tokenSecret -}}
{{- if not $token -}}
{{- if hasKey $previous "TOKEN_SECRET" -}}
{{- $token = index $previous "TOKEN_SECRET" | b64dec -}}
{{- else -}}
{{- $token = randAlphaNum 48 -}}
{{- end -}}
{{- end -}}
{{- $_ := set $data "TOKEN_SECRET" $token -}}
{{- end -}}
{{- $pg := .Values.postgres -}}
{{- if eq $pg.mode "bundled" -}}
{{- $pw := $pg.bundled.password -}}
{{- if not $pw -}}
{{- if hasKey $previous "POSTGRES_PASSWORD" -}}
{{- $pw = index $previous "POSTGRES_PASSWORD" | b64dec -}}
{{- else -}}
{{- $pw = randAlphaNum 32 -}}
{{- end -}}
{{- end -}}
{{- $_ := set $data "POSTGRES_PASSWORD" $pw -}}
{{- $_ := set $data "DATABASE_URL" (printf "postgresql://%s:%s@%s:5432/%s" $pg.bundled.user (urlquery $pw) (include "dominoes.postgresHost" .) $pg.bundled.database) -}}
{{- else if $pg.external.url -}}
{{- $_ := set $data "DATABASE_URL" $pg.external.url -}}
{{- else if $pg.external.urls -}}
{{- $_ := set $data "DATABASE_URL" (first $pg.external.urls) -}}
{{- $_ := set $data "DATABASE_URLS" (join "," $pg.external.urls) -}}
{{- end -}}
{{- $r := .Values.redis -}}
{{- if eq $r.mode "bundled" -}}
{{- $pw := $r.bundled.password -}}
{{- if not $pw -}}
{{- if hasKey $previous "REDIS_PASSWORD" -}}
{{- $pw = index $previous "REDIS_PASSWORD" | b64dec -}}
{{- else -}}
{{- $pw = randAlphaNum 32 -}}
{{- end -}}
{{- end -}}
{{- $_ := set $data "REDIS_PASSWORD" $pw -}}
{{- $_ := set $data "REDIS_URL" (printf "redis://:%s@%s:6379/0" (urlquery $pw) (include "dominoes.redisHost" .)) -}}
{{- else if $r.external.url -}}
{{- $_ := set $data "REDIS_URL" $r.external.url -}}
{{- end -}}
{{- $_ := set .Values "__dominoesSecretData" $data -}}
{{- end -}}
{{- toYaml (index .Values "__dominoesSecretData") -}}
{{- end -}}

{{/* DATABASE_URL for a container, as env entries. */}}
{{- define "dominoes.databaseUrlEnv" -}}
{{- $src := include "dominoes.databaseSource" . -}}
{{- if eq $src "chart" }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "dominoes.secretName" . }}
      key: DATABASE_URL
{{- else if eq $src "existing" }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secrets.existingSecret }}
      key: {{ .Values.secrets.keys.databaseUrl }}
{{- else if eq $src "parts" }}
{{- include "dominoes.databaseUrlFromParts" . }}
{{- end }}
{{- end -}}

{{/*
DATABASE_URLS for a container, as env entries (none for one database). `secret`: the Secret that holds the
chart's copy (the chart's own, or the migration Job's hook Secret).
Call with (dict "root" $ "secret" name).
*/}}
{{- define "dominoes.databaseUrlsEnv" -}}
{{- $e := .root.Values.postgres.external -}}
{{- if $e.urls }}
- name: DATABASE_URLS
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: DATABASE_URLS
{{- else if $e.urlsSecret.name }}
- name: DATABASE_URLS
  valueFrom:
    secretKeyRef:
      name: {{ $e.urlsSecret.name }}
      key: {{ $e.urlsSecret.key }}
{{- end }}
{{- end -}}

{{/* How many databases DATABASE_URLS lists: urls, urlsSecret.databases, else the one DATABASE_URL. */}}
{{- define "dominoes.databaseCount" -}}
{{- $e := .Values.postgres.external -}}
{{- if $e.urls -}}{{ len $e.urls }}
{{- else if $e.urlsSecret.name -}}{{ int $e.urlsSecret.databases }}
{{- else -}}1
{{- end -}}
{{- end -}}

{{/*
Refuses, with the value's name, what the services would refuse at start (libs/platform/src/shard-map.ts):
several databases with the bundled Postgres, two ways of listing them, and a postgres.external.shardMap that
is not from-to:database ranges naming every shard of tableShards once and only listed databases. Renders nothing.
*/}}
{{- define "dominoes.checkDatabases" -}}
{{- $pg := .Values.postgres -}}
{{- $e := $pg.external -}}
{{- if and (eq $pg.mode "bundled") (or $e.urls $e.urlsSecret.name $e.shardMap) -}}
{{- fail "postgres.external.urls, urlsSecret and shardMap need postgres.mode external (the bundled Postgres is one database)" -}}
{{- end -}}
{{- if and $e.urls $e.urlsSecret.name -}}
{{- fail "postgres.external: set urls or urlsSecret, not both" -}}
{{- end -}}
{{- if and $e.urls $e.url -}}
{{- fail "postgres.external: set url (one database) or urls (several, the home database first), not both" -}}
{{- end -}}
{{- if and $e.urlsSecret.name (lt (int $e.urlsSecret.databases) 1) -}}
{{- fail "postgres.external.urlsSecret.databases must say how many URLs the Secret's DATABASE_URLS lists (at least 1)" -}}
{{- end -}}
{{- $count := include "dominoes.databaseCount" . | int -}}
{{- $listed := ternary "postgres.external.urls lists" "postgres.external.urlsSecret.databases says" (gt (len $e.urls) 0) -}}
{{- $shards := int .Values.tableShards -}}
{{- $seen := dict -}}
{{- range $raw := splitList "," $e.shardMap -}}
{{- $part := trim $raw -}}
{{- if $part -}}
{{- if not (regexMatch "^[0-9]+(-[0-9]+)?:[0-9]+$" $part) -}}
{{- fail (printf "postgres.external.shardMap: %q is not from-to:database or shard:database" $part) -}}
{{- end -}}
{{- $sides := splitList ":" $part -}}
{{- $range := splitList "-" (first $sides) -}}
{{- $from := first $range | int -}}
{{- $to := last $range | int -}}
{{- $db := last $sides | int -}}
{{- if gt $from $to -}}
{{- fail (printf "postgres.external.shardMap: %q: %d is after %d" $part $from $to) -}}
{{- end -}}
{{- if ge $to $shards -}}
{{- fail (printf "postgres.external.shardMap: %q: there are %d table shards (0-%d, tableShards)" $part $shards (sub $shards 1)) -}}
{{- end -}}
{{- if and (ge $db $count) (not (or $e.urls $e.urlsSecret.name)) -}}
{{- fail (printf "postgres.external.shardMap: %q names database %d, but there is one database (list them in postgres.external.urls or urlsSecret)" $part $db) -}}
{{- end -}}
{{- if ge $db $count -}}
{{- fail (printf "postgres.external.shardMap: %q names database %d, but %s %d (databases 0-%d)" $part $db $listed $count (sub $count 1)) -}}
{{- end -}}
{{- range $s := untilStep $from (int (add1 $to)) 1 -}}
{{- if hasKey $seen (toString $s) -}}
{{- fail (printf "postgres.external.shardMap: shard %d is named twice" $s) -}}
{{- end -}}
{{- $_ := set $seen (toString $s) $db -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if trim $e.shardMap -}}
{{- range $s := until $shards -}}
{{- if not (hasKey $seen (toString $s)) -}}
{{- fail (printf "postgres.external.shardMap: shard %d is in no database (tableShards %d: name 0-%d)" $s $shards (sub $shards 1)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "dominoes.databaseUrlFromParts" -}}
{{- $e := .Values.postgres.external -}}
{{- $query := "" -}}
{{- if $e.sslmode -}}{{- $query = printf "?sslmode=%s" $e.sslmode -}}{{- end -}}
{{- if $e.passwordSecret.name }}
- name: DOMINOES_POSTGRES_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $e.passwordSecret.name }}
      key: {{ $e.passwordSecret.key }}
- name: DATABASE_URL
  value: {{ printf "postgresql://%s:$(DOMINOES_POSTGRES_PASSWORD)@%s:%v/%s%s" $e.user $e.host $e.port $e.database $query | quote }}
{{- else }}
- name: DATABASE_URL
  value: {{ printf "postgresql://%s@%s:%v/%s%s" $e.user $e.host $e.port $e.database $query | quote }}
{{- end }}
{{- end -}}

{{/* REDIS_URL for a container, as env entries. */}}
{{- define "dominoes.redisUrlEnv" -}}
{{- $src := include "dominoes.redisSource" . -}}
{{- if eq $src "chart" }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "dominoes.secretName" . }}
      key: REDIS_URL
{{- else if eq $src "existing" }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.secrets.existingSecret }}
      key: {{ .Values.secrets.keys.redisUrl }}
{{- else }}
{{- $e := .Values.redis.external -}}
{{- $scheme := $e.tls | ternary "rediss" "redis" -}}
{{- if $e.passwordSecret.name }}
- name: DOMINOES_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $e.passwordSecret.name }}
      key: {{ $e.passwordSecret.key }}
- name: REDIS_URL
  value: {{ printf "%s://%s:$(DOMINOES_REDIS_PASSWORD)@%s:%v/%v" $scheme $e.username $e.host $e.port $e.db | quote }}
{{- else }}
- name: REDIS_URL
  value: {{ printf "%s://%s:%v/%v" $scheme $e.host $e.port $e.db | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "dominoes.tokenSecretEnv" -}}
- name: TOKEN_SECRET
  valueFrom:
    secretKeyRef:
      {{- if .Values.secrets.existingSecret }}
      name: {{ .Values.secrets.existingSecret }}
      key: {{ .Values.secrets.keys.tokenSecret }}
      {{- else }}
      name: {{ include "dominoes.secretName" . }}
      key: TOKEN_SECRET
      {{- end }}
{{- end -}}

{{/* PUBLIC_URL: the value, else the first ingress host / HTTPRoute hostname. */}}
{{- define "dominoes.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{- printf "https://%s" (first .Values.ingress.hosts).host -}}
{{- else if and .Values.httpRoute.enabled .Values.httpRoute.hostnames -}}
{{- printf "https://%s" (first .Values.httpRoute.hostnames) -}}
{{- end -}}
{{- end -}}

{{/* Checksums that roll the pods when their configuration changes. */}}
{{- define "dominoes.configChecksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end -}}

{{/*
Hook events of the migration Job. With external Postgres it runs before anything changes (pre-install); the
bundled Postgres is an ordinary release resource, which exists only after pre-install hooks, so there the first
run is post-install. Upgrades always migrate first (pre-upgrade).
*/}}
{{- define "dominoes.migrationHooks" -}}
{{- if eq .Values.postgres.mode "bundled" -}}
post-install,pre-upgrade
{{- else -}}
pre-install,pre-upgrade
{{- end -}}
{{- end -}}
