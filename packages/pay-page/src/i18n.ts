/** Languages the pay page speaks; the first is the fallback. */
export const SUPPORTED_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** Native names for the language switcher. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
};

/**
 * Every text of the pay page, server-rendered and browser script alike. `{name}` placeholders are
 * filled by `formatText`.
 */
export interface Messages {
  documentTitle: string;
  payTo: string;
  merchantFallback: string;
  orderReference: string;
  amountDue: string;
  usdEquivalent: string;
  /** After the locked rate when the merchant adds a spread: "incl. 1% spread". */
  rateSpread: string;
  /** The name shown for the dated static rate table instead of market sources. */
  rateStaticTable: string;
  /** How long the order's price holds: its expiry, "15:02 UTC". */
  rateHeldUntil: string;
  sandboxBanner: string;
  chooseMethod: string;
  cryptoGroup: string;
  fiatGroup: string;
  unavailable: string;
  notOfferedGroup: string;
  chooseOtherMethod: string;
  selected: string;
  sendTitle: string;
  amount: string;
  /** Live mode only: the amount is tagged to find the order, so it must be paid to the unit. */
  sendExactly: string;
  /**
   * Live mode on Solana: the order is found by the Solana Pay reference that the QR code and the
   * wallet link add to the transfer, not by its amount; a transfer typed in by hand has none.
   */
  payWithReference: string;
  network: string;
  address: string;
  copy: string;
  copyAmount: string;
  copyAddress: string;
  copied: string;
  copyFailed: string;
  qrLabel: string;
  openWallet: string;
  sendOnly: string;
  continueFiat: string;
  redirecting: string;
  statusPending: string;
  statusProcessing: string;
  statusUnderpaid: string;
  statusSettled: string;
  statusExpired: string;
  stillDue: string;
  paidLate: string;
  expiresIn: string;
  returning: string;
  closing: string;
  continueToMerchant: string;
  backToMerchant: string;
  cancel: string;
  close: string;
  refreshStatus: string;
  noscript: string;
  loadFailed: string;
  connectionProblem: string;
  sandboxTitle: string;
  sandboxHint: string;
  simulateFull: string;
  simulatePartial: string;
  simulateOver: string;
  simulateUnconfirmed: string;
  simulated: string;
  language: string;
  securedBy: string;
}

const en: Messages = {
  documentTitle: 'Pay {merchant}',
  payTo: 'Payment to',
  merchantFallback: 'the shop',
  orderReference: 'Order {reference}',
  amountDue: 'Amount to pay',
  usdEquivalent: '{amount} in US dollars',
  rateSpread: 'incl. {percent} spread',
  rateStaticTable: 'fixed rate table',
  rateHeldUntil: 'price held until {time}',
  sandboxBanner: 'Sandbox: test mode, no real money is moved.',
  chooseMethod: 'Choose how to pay',
  cryptoGroup: 'Cryptocurrency',
  fiatGroup: 'Card or bank',
  unavailable: 'Not available for this amount',
  notOfferedGroup: 'Not offered for this order ({count})',
  chooseOtherMethod: 'Or pay another way',
  selected: 'selected',
  sendTitle: 'Send {amount} {asset}',
  amount: 'Amount',
  sendExactly: 'Send exactly this amount: a different amount cannot be matched to your order.',
  payWithReference:
    'Pay with the QR code or “Open in wallet”: the payment then carries this order’s reference. A transfer typed in by hand to this address cannot be matched to your order.',
  network: 'Network',
  address: 'Address',
  copy: 'Copy',
  copyAmount: 'Copy amount',
  copyAddress: 'Copy address',
  copied: 'Copied',
  copyFailed: 'Could not copy. Select the text and copy it yourself.',
  qrLabel: 'QR code to scan with a wallet app',
  openWallet: 'Open in wallet',
  sendOnly: 'Send only {asset} on {network}. Anything else may be lost.',
  continueFiat: 'Continue to {method}',
  redirecting: 'Taking you to {method}…',
  statusPending: 'Waiting for your payment',
  statusProcessing: 'Payment received, waiting for confirmation',
  statusUnderpaid: 'Partly paid',
  statusSettled: 'Payment complete. Thank you!',
  statusExpired: 'This payment request has expired',
  stillDue: '{amount} still to pay',
  paidLate: 'Your payment arrived after the deadline and was accepted.',
  expiresIn: 'Time left: {time}',
  returning: 'Taking you back to {merchant}…',
  closing: 'This window closes in a moment.',
  continueToMerchant: 'Continue to {merchant}',
  backToMerchant: 'Back to {merchant}',
  cancel: 'Cancel and return to {merchant}',
  close: 'Close',
  refreshStatus: 'Refresh status',
  noscript: 'Reload this page to see whether your payment has arrived.',
  loadFailed: 'Could not load the payment details. Please try again.',
  connectionProblem: 'Connection problem, retrying…',
  sandboxTitle: 'Simulate a payment',
  sandboxHint: 'Sandbox only: pretend the buyer has paid.',
  simulateFull: 'Pay in full',
  simulatePartial: 'Pay part',
  simulateOver: 'Pay too much',
  simulateUnconfirmed: 'Show the confirmation step first',
  simulated: 'Payment simulated.',
  language: 'Language',
  securedBy: 'Payment handled by Crypto Checkout',
};

const de: Messages = {
  documentTitle: '{merchant} bezahlen',
  payTo: 'Zahlung an',
  merchantFallback: 'den Shop',
  orderReference: 'Bestellung {reference}',
  amountDue: 'Zu zahlender Betrag',
  usdEquivalent: '{amount} in US-Dollar',
  rateSpread: 'inkl. {percent} Aufschlag',
  rateStaticTable: 'feste Kurstabelle',
  rateHeldUntil: 'Preis gilt bis {time}',
  sandboxBanner: 'Sandbox: Testmodus, es wird kein echtes Geld bewegt.',
  chooseMethod: 'Zahlungsart wählen',
  cryptoGroup: 'Kryptowährung',
  fiatGroup: 'Karte oder Bank',
  unavailable: 'Für diesen Betrag nicht verfügbar',
  notOfferedGroup: 'Für diese Bestellung nicht angeboten ({count})',
  chooseOtherMethod: 'Oder anders bezahlen',
  selected: 'ausgewählt',
  sendTitle: '{amount} {asset} senden',
  amount: 'Betrag',
  sendExactly:
    'Genau diesen Betrag senden: Ein anderer Betrag kann Ihrer Bestellung nicht zugeordnet werden.',
  payWithReference:
    'Zahlen Sie über den QR-Code oder „In Wallet öffnen“: So enthält die Zahlung die Referenz dieser Bestellung. Eine von Hand an diese Adresse eingegebene Überweisung kann Ihrer Bestellung nicht zugeordnet werden.',
  network: 'Netzwerk',
  address: 'Adresse',
  copy: 'Kopieren',
  copyAmount: 'Betrag kopieren',
  copyAddress: 'Adresse kopieren',
  copied: 'Kopiert',
  copyFailed: 'Kopieren fehlgeschlagen. Bitte den Text markieren und selbst kopieren.',
  qrLabel: 'QR-Code zum Scannen mit einer Wallet-App',
  openWallet: 'In Wallet öffnen',
  sendOnly: 'Nur {asset} im Netzwerk {network} senden. Alles andere kann verloren gehen.',
  continueFiat: 'Weiter zu {method}',
  redirecting: 'Weiterleitung zu {method}…',
  statusPending: 'Warten auf Ihre Zahlung',
  statusProcessing: 'Zahlung eingegangen, Bestätigung ausstehend',
  statusUnderpaid: 'Teilweise bezahlt',
  statusSettled: 'Zahlung abgeschlossen. Vielen Dank!',
  statusExpired: 'Diese Zahlungsanforderung ist abgelaufen',
  stillDue: 'Noch zu zahlen: {amount}',
  paidLate: 'Ihre Zahlung kam nach Ablauf der Frist an und wurde angenommen.',
  expiresIn: 'Verbleibende Zeit: {time}',
  returning: 'Sie werden zu {merchant} zurückgeleitet…',
  closing: 'Dieses Fenster schließt sich gleich.',
  continueToMerchant: 'Weiter zu {merchant}',
  backToMerchant: 'Zurück zu {merchant}',
  cancel: 'Abbrechen und zurück zu {merchant}',
  close: 'Schließen',
  refreshStatus: 'Status aktualisieren',
  noscript: 'Laden Sie diese Seite neu, um zu sehen, ob Ihre Zahlung eingegangen ist.',
  loadFailed: 'Die Zahlungsdaten konnten nicht geladen werden. Bitte erneut versuchen.',
  connectionProblem: 'Verbindungsproblem, neuer Versuch…',
  sandboxTitle: 'Zahlung simulieren',
  sandboxHint: 'Nur in der Sandbox: so tun, als hätte der Käufer bezahlt.',
  simulateFull: 'Vollständig zahlen',
  simulatePartial: 'Teilweise zahlen',
  simulateOver: 'Zu viel zahlen',
  simulateUnconfirmed: 'Erst den Bestätigungsschritt zeigen',
  simulated: 'Zahlung simuliert.',
  language: 'Sprache',
  securedBy: 'Zahlungsabwicklung durch Crypto Checkout',
};

const fr: Messages = {
  documentTitle: 'Payer {merchant}',
  payTo: 'Paiement à',
  merchantFallback: 'la boutique',
  orderReference: 'Commande {reference}',
  amountDue: 'Montant à payer',
  usdEquivalent: '{amount} en dollars américains',
  rateSpread: 'marge de {percent} incluse',
  rateStaticTable: 'table de taux fixe',
  rateHeldUntil: 'prix garanti jusqu’à {time}',
  sandboxBanner: 'Sandbox : mode test, aucun argent réel n’est transféré.',
  chooseMethod: 'Choisissez votre moyen de paiement',
  cryptoGroup: 'Cryptomonnaie',
  fiatGroup: 'Carte ou banque',
  unavailable: 'Indisponible pour ce montant',
  notOfferedGroup: 'Non proposés pour cette commande ({count})',
  chooseOtherMethod: 'Ou payer autrement',
  selected: 'sélectionné',
  sendTitle: 'Envoyez {amount} {asset}',
  amount: 'Montant',
  sendExactly:
    'Envoyez exactement ce montant : un autre montant ne pourra pas être rattaché à votre commande.',
  payWithReference:
    'Payez avec le QR code ou « Ouvrir dans le portefeuille » : le paiement porte alors la référence de cette commande. Un virement saisi à la main vers cette adresse ne pourra pas être rattaché à votre commande.',
  network: 'Réseau',
  address: 'Adresse',
  copy: 'Copier',
  copyAmount: 'Copier le montant',
  copyAddress: 'Copier l’adresse',
  copied: 'Copié',
  copyFailed: 'Copie impossible. Sélectionnez le texte et copiez-le vous-même.',
  qrLabel: 'QR code à scanner avec une application de portefeuille',
  openWallet: 'Ouvrir dans le portefeuille',
  sendOnly: 'Envoyez uniquement des {asset} sur {network}. Tout autre envoi risque d’être perdu.',
  continueFiat: 'Continuer vers {method}',
  redirecting: 'Redirection vers {method}…',
  statusPending: 'En attente de votre paiement',
  statusProcessing: 'Paiement reçu, confirmation en cours',
  statusUnderpaid: 'Paiement partiel',
  statusSettled: 'Paiement effectué. Merci !',
  statusExpired: 'Cette demande de paiement a expiré',
  stillDue: 'Reste à payer : {amount}',
  paidLate: 'Votre paiement est arrivé après l’échéance et a été accepté.',
  expiresIn: 'Temps restant : {time}',
  returning: 'Retour vers {merchant}…',
  closing: 'Cette fenêtre va se fermer.',
  continueToMerchant: 'Continuer vers {merchant}',
  backToMerchant: 'Retour à {merchant}',
  cancel: 'Annuler et revenir à {merchant}',
  close: 'Fermer',
  refreshStatus: 'Actualiser le statut',
  noscript: 'Rechargez cette page pour savoir si votre paiement est arrivé.',
  loadFailed: 'Impossible de charger les détails du paiement. Veuillez réessayer.',
  connectionProblem: 'Problème de connexion, nouvelle tentative…',
  sandboxTitle: 'Simuler un paiement',
  sandboxHint: 'Sandbox uniquement : faire comme si l’acheteur avait payé.',
  simulateFull: 'Payer en totalité',
  simulatePartial: 'Payer une partie',
  simulateOver: 'Payer trop',
  simulateUnconfirmed: 'Afficher d’abord l’étape de confirmation',
  simulated: 'Paiement simulé.',
  language: 'Langue',
  securedBy: 'Paiement géré par Crypto Checkout',
};

const es: Messages = {
  documentTitle: 'Pagar a {merchant}',
  payTo: 'Pago a',
  merchantFallback: 'la tienda',
  orderReference: 'Pedido {reference}',
  amountDue: 'Importe a pagar',
  usdEquivalent: '{amount} en dólares estadounidenses',
  rateSpread: 'margen del {percent} incluido',
  rateStaticTable: 'tabla de tipos fija',
  rateHeldUntil: 'precio fijo hasta {time}',
  sandboxBanner: 'Sandbox: modo de prueba, no se mueve dinero real.',
  chooseMethod: 'Elige cómo pagar',
  cryptoGroup: 'Criptomoneda',
  fiatGroup: 'Tarjeta o banco',
  unavailable: 'No disponible para este importe',
  notOfferedGroup: 'No disponibles para este pedido ({count})',
  chooseOtherMethod: 'O paga de otra forma',
  selected: 'seleccionado',
  sendTitle: 'Envía {amount} {asset}',
  amount: 'Importe',
  sendExactly: 'Envía exactamente este importe: un importe distinto no se puede asociar a tu pedido.',
  payWithReference:
    'Paga con el código QR o «Abrir en el monedero»: así el pago lleva la referencia de este pedido. Una transferencia introducida a mano a esta dirección no se puede asociar a tu pedido.',
  network: 'Red',
  address: 'Dirección',
  copy: 'Copiar',
  copyAmount: 'Copiar importe',
  copyAddress: 'Copiar dirección',
  copied: 'Copiado',
  copyFailed: 'No se pudo copiar. Selecciona el texto y cópialo tú mismo.',
  qrLabel: 'Código QR para escanear con una app de monedero',
  openWallet: 'Abrir en el monedero',
  sendOnly: 'Envía solo {asset} en {network}. Cualquier otra cosa podría perderse.',
  continueFiat: 'Continuar a {method}',
  redirecting: 'Llevándote a {method}…',
  statusPending: 'Esperando tu pago',
  statusProcessing: 'Pago recibido, esperando confirmación',
  statusUnderpaid: 'Pagado en parte',
  statusSettled: 'Pago completado. ¡Gracias!',
  statusExpired: 'Esta solicitud de pago ha caducado',
  stillDue: 'Falta por pagar: {amount}',
  paidLate: 'Tu pago llegó después del plazo y fue aceptado.',
  expiresIn: 'Tiempo restante: {time}',
  returning: 'Volviendo a {merchant}…',
  closing: 'Esta ventana se cerrará en un momento.',
  continueToMerchant: 'Continuar a {merchant}',
  backToMerchant: 'Volver a {merchant}',
  cancel: 'Cancelar y volver a {merchant}',
  close: 'Cerrar',
  refreshStatus: 'Actualizar estado',
  noscript: 'Recarga esta página para ver si tu pago ha llegado.',
  loadFailed: 'No se pudieron cargar los datos del pago. Inténtalo de nuevo.',
  connectionProblem: 'Problema de conexión, reintentando…',
  sandboxTitle: 'Simular un pago',
  sandboxHint: 'Solo en sandbox: simula que el comprador ha pagado.',
  simulateFull: 'Pagar todo',
  simulatePartial: 'Pagar una parte',
  simulateOver: 'Pagar de más',
  simulateUnconfirmed: 'Mostrar primero el paso de confirmación',
  simulated: 'Pago simulado.',
  language: 'Idioma',
  securedBy: 'Pago gestionado por Crypto Checkout',
};

/** Message tables by language. */
export const MESSAGES: Readonly<Record<Language, Messages>> = { en, de, fr, es };

/** True when `value` is one of the supported language codes. */
export function isSupportedLanguage(value: string): value is Language {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(value);
}

/** The messages for `lang`, English when it is not supported. */
export function messagesFor(lang: string): Messages {
  return isSupportedLanguage(lang) ? MESSAGES[lang] : MESSAGES.en;
}

// Bounds the work spent on a header the client controls.
const MAX_ACCEPT_LANGUAGE_LENGTH = 1_000;
const MAX_ACCEPT_LANGUAGE_ENTRIES = 32;

/**
 * Picks the page language: an explicit `lang` parameter wins ("de", "de-AT", "DE"), then the
 * browser's Accept-Language preferences by q-value, then English.
 */
export function resolveLanguage(langParam: string | undefined, acceptLanguage: string | undefined): Language {
  const fromParam = langParam === undefined ? undefined : primarySubtag(langParam);
  if (fromParam !== undefined && isSupportedLanguage(fromParam)) return fromParam;
  for (const tag of rankAcceptLanguage(acceptLanguage ?? '')) {
    const primary = primarySubtag(tag);
    if (isSupportedLanguage(primary)) return primary;
  }
  return SUPPORTED_LANGUAGES[0];
}

function primarySubtag(tag: string): string {
  return tag.trim().split(/[-_]/, 1)[0]!.toLowerCase();
}

/** Language tags of an Accept-Language header, most preferred first; q=0 entries are dropped. */
function rankAcceptLanguage(header: string): string[] {
  const entries = header
    .slice(0, MAX_ACCEPT_LANGUAGE_LENGTH)
    .split(',', MAX_ACCEPT_LANGUAGE_ENTRIES)
    .map((entry, index) => {
      const [tag = '', ...parameters] = entry.split(';');
      const qParameter = parameters.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
      const quality = qParameter === undefined ? 1 : Number(qParameter.slice(2));
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.tag !== '' && entry.quality > 0);
  // Equal q-values keep header order, as the header's author listed them.
  entries.sort((a, b) => b.quality - a.quality || a.index - b.index);
  return entries.map((entry) => entry.tag);
}
