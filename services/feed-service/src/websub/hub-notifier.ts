/** Tells the WebSub hubs that these feed URLs changed, without waiting for them. */
export interface HubNotifier {
  announce(topics: readonly string[]): void;
}
