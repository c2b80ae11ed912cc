// The package ships no types: what the metrics spec uses of it.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
