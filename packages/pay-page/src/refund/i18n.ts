import { isSupportedLanguage, type Language } from '../i18n.js';

/**
 * Every text of the buyer's refund claim page (docs/refunds.md), in each language of the pay page.
 * `{name}` placeholders are filled by `formatText`. The language switcher's label and the sandbox
 * banner come from the pay page's own messages.
 */
export interface RefundMessages {
  documentTitle: string;
  documentTitleGeneric: string;
  /** Prefix of the document title while the form shows a problem, so it is the first thing read. */
  errorTitle: string;
  refundFrom: string;
  merchantFallback: string;
  orderReference: string;
  amountLabel: string;
  amountOnNetwork: string;
  fiatValue: string;
  enterTitle: string;
  enterIntro: string;
  addressLabel: string;
  addressHint: string;
  addressAgainLabel: string;
  addressAgainHint: string;
  deadline: string;
  check: string;
  reviewTitle: string;
  reviewIntro: string;
  reviewCompare: string;
  address: string;
  network: string;
  asset: string;
  memoTitle: string;
  memoWarning: string;
  confirmLabel: string;
  confirm: string;
  change: string;
  confirmedTitle: string;
  confirmedAddress: string;
  willSend: string;
  refreshNow: string;
  paidTitle: string;
  paidDetail: string;
  paidAt: string;
  viewTransaction: string;
  transaction: string;
  cancelledTitle: string;
  cancelledDetail: string;
  expiredTitle: string;
  expiredDetail: string;
  notFoundTitle: string;
  notFound: string;
  badFormTitle: string;
  badForm: string;
  backToRefund: string;
  handledBy: string;
  problemEmpty: string;
  problemEmptyAgain: string;
  problemWhitespace: string;
  problemWrongNetwork: string;
  problemTestnet: string;
  problemBadFormat: string;
  problemBadLength: string;
  problemBadCharacter: string;
  problemChecksum: string;
  problemUnknownNetwork: string;
  problemMismatch: string;
  problemNotConfirmed: string;
  problemAlreadyConfirmed: string;
  /** Well-formed addresses that lose the refund: the zero address, a token contract, the service's own, the shop's. */
  problemZeroAddress: string;
  problemTokenContract: string;
  problemTokenAccount: string;
  problemExtendedKey: string;
  problemPrivateKey: string;
  problemServiceAddress: string;
  problemShopWallet: string;
  problemOther: string;
}

const en: RefundMessages = {
  documentTitle: 'Refund from {merchant}',
  documentTitleGeneric: 'Your refund',
  errorTitle: 'Error: {title}',
  refundFrom: 'Refund from',
  merchantFallback: 'the shop',
  orderReference: 'Order {reference}',
  amountLabel: 'Your refund',
  amountOnNetwork: '{amount} {asset} on {network}',
  fiatValue: 'Worth {amount} at the rate of your payment',
  enterTitle: 'Where should the shop send your refund?',
  enterIntro: 'Enter an address of your own wallet on {network} that can receive {asset}.',
  addressLabel: 'Your address on {network}',
  addressHint:
    'It must be an address on {network} that can receive {asset}. Sent to an address on another network, the refund is lost.',
  addressAgainLabel: 'The same address again',
  addressAgainHint: 'Paste or type it once more, so that a slip is caught before anything is sent.',
  deadline: 'Confirm your address by {deadline}.',
  check: 'Continue',
  reviewTitle: 'Check your address',
  reviewIntro: 'The shop will send {amount} {asset} on {network} to this address:',
  reviewCompare: 'Compare it with the address in your wallet, group by group.',
  address: 'Address',
  network: 'Network',
  asset: 'Asset',
  memoTitle: 'No memo, tag or payment ID',
  memoWarning:
    'Do not use an exchange deposit address that needs a memo, tag or payment ID: the shop’s transfer cannot carry one, and the refund could be lost.',
  confirmLabel: 'This is my address on {network} and it can receive {asset}.',
  confirm: 'Confirm address',
  change: 'Change address',
  confirmedTitle: 'Address confirmed',
  confirmedAddress: 'Your address is confirmed:',
  willSend: 'The shop will send {amount} {asset} on {network}. This page refreshes by itself.',
  refreshNow: 'Refresh now',
  paidTitle: 'Refund sent',
  paidDetail: '{amount} {asset} was sent on {network} to:',
  paidAt: 'Sent on {date}.',
  viewTransaction: 'View the transaction',
  transaction: 'Transaction',
  cancelledTitle: 'Refund cancelled',
  cancelledDetail: 'The shop cancelled this refund. Contact {merchant} if you have questions.',
  expiredTitle: 'This refund claim has expired',
  expiredDetail: 'No address was confirmed by {deadline}. Contact {merchant} to receive your refund.',
  notFoundTitle: 'Refund not found',
  notFound:
    'This refund link is not valid. Check that you opened the whole link from the shop’s message, or contact the shop.',
  badFormTitle: 'The form could not be read',
  badForm: 'Go back to your refund and enter the address again.',
  backToRefund: 'Back to your refund',
  handledBy: 'Refund handled by Crypto Checkout',
  problemEmpty: 'Enter your address.',
  problemEmptyAgain: 'Enter the address a second time.',
  problemWhitespace:
    'The address contains spaces or invisible characters. Remove them, or copy the address again from your wallet.',
  problemWrongNetwork: 'This is an address of another network. Enter an address on {network}.',
  problemTestnet: 'This is a test network address. Enter an address on the {network} main network.',
  problemBadFormat: 'This is not an address on {network}. Copy the address again from your wallet.',
  problemBadLength: 'The address is too short or too long. Copy the address again from your wallet.',
  problemBadCharacter:
    'The address contains a character that does not belong in it. Copy the address again from your wallet.',
  problemChecksum:
    'A character of the address was probably changed: its checksum does not match. Copy the address again from your wallet.',
  problemUnknownNetwork: 'Refunds on this network cannot be claimed here. Contact the shop.',
  problemMismatch: 'The two addresses differ. Enter the same address in both fields.',
  problemNotConfirmed: 'Tick the box to confirm that this is your address.',
  problemAlreadyConfirmed: 'An address is already confirmed for this refund; it cannot be changed.',
  problemZeroAddress:
    'This is the zero address: nothing sent there can ever be used. Enter your own wallet address on {network}.',
  problemTokenContract:
    'This is the address of a token contract, not a wallet: {asset} sent there is lost. Enter your own wallet address on {network}.',
  problemTokenAccount:
    'This is a token account, not a wallet: {asset} sent there would land where your wallet app cannot reach it. Enter your wallet address on {network}.',
  problemExtendedKey:
    'This is an extended public key (xpub, zpub), not an address: a refund can only be sent to one address. Open “Receive” in your wallet app and copy the address it shows.',
  problemPrivateKey:
    'This is a private key: whoever has it can take your coins. Never share it. Enter the receive address your wallet app shows.',
  problemServiceAddress:
    'This is an address of the payment service, not your wallet: a refund sent there would be lost. Enter your own wallet address on {network}.',
  problemShopWallet:
    'This is the shop’s own wallet: the refund would go back to the shop. Enter your own wallet address on {network}.',
  problemOther: 'This address cannot be used. Copy the address again from your wallet.',
};

const de: RefundMessages = {
  documentTitle: 'Erstattung von {merchant}',
  documentTitleGeneric: 'Ihre Erstattung',
  errorTitle: 'Fehler: {title}',
  refundFrom: 'Erstattung von',
  merchantFallback: 'dem Shop',
  orderReference: 'Bestellung {reference}',
  amountLabel: 'Ihre Erstattung',
  amountOnNetwork: '{amount} {asset} im Netzwerk {network}',
  fiatValue: 'Entspricht {amount} zum Kurs Ihrer Zahlung',
  enterTitle: 'Wohin soll der Shop Ihre Erstattung senden?',
  enterIntro:
    'Geben Sie eine Adresse Ihrer eigenen Wallet im Netzwerk {network} an, die {asset} empfangen kann.',
  addressLabel: 'Ihre Adresse im Netzwerk {network}',
  addressHint:
    'Es muss eine Adresse im Netzwerk {network} sein, die {asset} empfangen kann. An eine Adresse in einem anderen Netzwerk gesendet, geht die Erstattung verloren.',
  addressAgainLabel: 'Dieselbe Adresse noch einmal',
  addressAgainHint:
    'Fügen Sie sie noch einmal ein oder tippen Sie sie ab, damit ein Versehen auffällt, bevor etwas gesendet wird.',
  deadline: 'Bestätigen Sie Ihre Adresse bis {deadline}.',
  check: 'Weiter',
  reviewTitle: 'Prüfen Sie Ihre Adresse',
  reviewIntro: 'Der Shop sendet {amount} {asset} im Netzwerk {network} an diese Adresse:',
  reviewCompare: 'Vergleichen Sie sie Gruppe für Gruppe mit der Adresse in Ihrer Wallet.',
  address: 'Adresse',
  network: 'Netzwerk',
  asset: 'Währung',
  memoTitle: 'Kein Memo, Tag und keine Payment-ID',
  memoWarning:
    'Verwenden Sie keine Einzahlungsadresse einer Börse, die ein Memo, einen Tag oder eine Payment-ID verlangt: Die Überweisung des Shops kann keine mitsenden, und die Erstattung könnte verloren gehen.',
  confirmLabel: 'Dies ist meine Adresse im Netzwerk {network}, und sie kann {asset} empfangen.',
  confirm: 'Adresse bestätigen',
  change: 'Adresse ändern',
  confirmedTitle: 'Adresse bestätigt',
  confirmedAddress: 'Ihre Adresse ist bestätigt:',
  willSend:
    'Der Shop sendet {amount} {asset} im Netzwerk {network}. Diese Seite aktualisiert sich von selbst.',
  refreshNow: 'Jetzt aktualisieren',
  paidTitle: 'Erstattung gesendet',
  paidDetail: '{amount} {asset} wurden im Netzwerk {network} gesendet an:',
  paidAt: 'Gesendet am {date}.',
  viewTransaction: 'Transaktion ansehen',
  transaction: 'Transaktion',
  cancelledTitle: 'Erstattung storniert',
  cancelledDetail: 'Der Shop hat diese Erstattung storniert. Wenden Sie sich bei Fragen an {merchant}.',
  expiredTitle: 'Diese Erstattung ist abgelaufen',
  expiredDetail:
    'Bis {deadline} wurde keine Adresse bestätigt. Wenden Sie sich an {merchant}, um Ihre Erstattung zu erhalten.',
  notFoundTitle: 'Erstattung nicht gefunden',
  notFound:
    'Dieser Erstattungslink ist ungültig. Prüfen Sie, ob Sie den ganzen Link aus der Nachricht des Shops geöffnet haben, oder wenden Sie sich an den Shop.',
  badFormTitle: 'Das Formular konnte nicht gelesen werden',
  badForm: 'Gehen Sie zurück zu Ihrer Erstattung und geben Sie die Adresse erneut ein.',
  backToRefund: 'Zurück zu Ihrer Erstattung',
  handledBy: 'Erstattung abgewickelt durch Crypto Checkout',
  problemEmpty: 'Geben Sie Ihre Adresse ein.',
  problemEmptyAgain: 'Geben Sie die Adresse ein zweites Mal ein.',
  problemWhitespace:
    'Die Adresse enthält Leerzeichen oder unsichtbare Zeichen. Entfernen Sie sie oder kopieren Sie die Adresse erneut aus Ihrer Wallet.',
  problemWrongNetwork:
    'Dies ist eine Adresse eines anderen Netzwerks. Geben Sie eine Adresse im Netzwerk {network} ein.',
  problemTestnet:
    'Dies ist eine Adresse eines Testnetzes. Geben Sie eine Adresse im Hauptnetz {network} ein.',
  problemBadFormat:
    'Dies ist keine Adresse im Netzwerk {network}. Kopieren Sie die Adresse erneut aus Ihrer Wallet.',
  problemBadLength: 'Die Adresse ist zu kurz oder zu lang. Kopieren Sie die Adresse erneut aus Ihrer Wallet.',
  problemBadCharacter:
    'Die Adresse enthält ein Zeichen, das nicht hineingehört. Kopieren Sie die Adresse erneut aus Ihrer Wallet.',
  problemChecksum:
    'Ein Zeichen der Adresse wurde wahrscheinlich verändert: Ihre Prüfsumme stimmt nicht. Kopieren Sie die Adresse erneut aus Ihrer Wallet.',
  problemUnknownNetwork:
    'Erstattungen in diesem Netzwerk können hier nicht angefordert werden. Wenden Sie sich an den Shop.',
  problemMismatch:
    'Die beiden Adressen unterscheiden sich. Geben Sie in beiden Feldern dieselbe Adresse ein.',
  problemNotConfirmed: 'Setzen Sie das Häkchen, um zu bestätigen, dass dies Ihre Adresse ist.',
  problemAlreadyConfirmed:
    'Für diese Erstattung ist bereits eine Adresse bestätigt; sie kann nicht geändert werden.',
  problemZeroAddress:
    'Dies ist die Null-Adresse: Was dorthin gesendet wird, kann nie verwendet werden. Geben Sie Ihre eigene Wallet-Adresse im Netzwerk {network} ein.',
  problemTokenContract:
    'Dies ist die Adresse eines Token-Vertrags, keine Wallet: Dorthin gesendete {asset} gehen verloren. Geben Sie Ihre eigene Wallet-Adresse im Netzwerk {network} ein.',
  problemTokenAccount:
    'Dies ist ein Token-Konto, keine Wallet: Dorthin gesendete {asset} landen dort, wo Ihre Wallet-App sie nicht erreicht. Geben Sie Ihre Wallet-Adresse im Netzwerk {network} ein.',
  problemExtendedKey:
    'Dies ist ein erweiterter öffentlicher Schlüssel (xpub, zpub), keine Adresse: Eine Erstattung kann nur an eine Adresse gehen. Öffnen Sie „Empfangen“ in Ihrer Wallet-App und kopieren Sie die angezeigte Adresse.',
  problemPrivateKey:
    'Dies ist ein privater Schlüssel: Wer ihn hat, kann über Ihre Coins verfügen. Geben Sie ihn niemals weiter. Geben Sie die Empfangsadresse ein, die Ihre Wallet-App anzeigt.',
  problemServiceAddress:
    'Dies ist eine Adresse des Zahlungsdienstes, nicht Ihre Wallet: Eine dorthin gesendete Erstattung ginge verloren. Geben Sie Ihre eigene Wallet-Adresse im Netzwerk {network} ein.',
  problemShopWallet:
    'Dies ist die Wallet des Shops: Die Erstattung ginge an den Shop zurück. Geben Sie Ihre eigene Wallet-Adresse im Netzwerk {network} ein.',
  problemOther:
    'Diese Adresse kann nicht verwendet werden. Kopieren Sie die Adresse erneut aus Ihrer Wallet.',
};

const fr: RefundMessages = {
  documentTitle: 'Remboursement de {merchant}',
  documentTitleGeneric: 'Votre remboursement',
  errorTitle: 'Erreur : {title}',
  refundFrom: 'Remboursement de',
  merchantFallback: 'la boutique',
  orderReference: 'Commande {reference}',
  amountLabel: 'Votre remboursement',
  amountOnNetwork: '{amount} {asset} sur {network}',
  fiatValue: 'Soit {amount} au taux de votre paiement',
  enterTitle: 'Où la boutique doit-elle envoyer votre remboursement ?',
  enterIntro:
    'Saisissez une adresse de votre propre portefeuille sur {network} qui peut recevoir des {asset}.',
  addressLabel: 'Votre adresse sur {network}',
  addressHint:
    'Ce doit être une adresse sur {network} qui peut recevoir des {asset}. Envoyé à une adresse d’un autre réseau, le remboursement est perdu.',
  addressAgainLabel: 'La même adresse, une seconde fois',
  addressAgainHint: 'Collez-la ou saisissez-la encore une fois, pour repérer une erreur avant tout envoi.',
  deadline: 'Confirmez votre adresse avant le {deadline}.',
  check: 'Continuer',
  reviewTitle: 'Vérifiez votre adresse',
  reviewIntro: 'La boutique enverra {amount} {asset} sur {network} à cette adresse :',
  reviewCompare: 'Comparez-la groupe par groupe avec l’adresse affichée dans votre portefeuille.',
  address: 'Adresse',
  network: 'Réseau',
  asset: 'Actif',
  memoTitle: 'Ni mémo, ni tag, ni identifiant de paiement',
  memoWarning:
    'N’utilisez pas une adresse de dépôt de plateforme d’échange qui exige un mémo, un tag ou un identifiant de paiement : le virement de la boutique ne peut pas en transmettre, et le remboursement risquerait d’être perdu.',
  confirmLabel: 'C’est mon adresse sur {network} et elle peut recevoir des {asset}.',
  confirm: 'Confirmer l’adresse',
  change: 'Modifier l’adresse',
  confirmedTitle: 'Adresse confirmée',
  confirmedAddress: 'Votre adresse est confirmée :',
  willSend: 'La boutique enverra {amount} {asset} sur {network}. Cette page s’actualise toute seule.',
  refreshNow: 'Actualiser maintenant',
  paidTitle: 'Remboursement envoyé',
  paidDetail: '{amount} {asset} ont été envoyés sur {network} à :',
  paidAt: 'Envoyé le {date}.',
  viewTransaction: 'Voir la transaction',
  transaction: 'Transaction',
  cancelledTitle: 'Remboursement annulé',
  cancelledDetail: 'La boutique a annulé ce remboursement. Contactez {merchant} pour toute question.',
  expiredTitle: 'Cette demande de remboursement a expiré',
  expiredDetail:
    'Aucune adresse n’a été confirmée avant le {deadline}. Contactez {merchant} pour recevoir votre remboursement.',
  notFoundTitle: 'Remboursement introuvable',
  notFound:
    'Ce lien de remboursement n’est pas valide. Vérifiez que vous avez ouvert le lien complet du message de la boutique, ou contactez la boutique.',
  badFormTitle: 'Le formulaire n’a pas pu être lu',
  badForm: 'Revenez à votre remboursement et saisissez à nouveau l’adresse.',
  backToRefund: 'Revenir à votre remboursement',
  handledBy: 'Remboursement géré par Crypto Checkout',
  problemEmpty: 'Saisissez votre adresse.',
  problemEmptyAgain: 'Saisissez l’adresse une seconde fois.',
  problemWhitespace:
    'L’adresse contient des espaces ou des caractères invisibles. Supprimez-les ou copiez à nouveau l’adresse depuis votre portefeuille.',
  problemWrongNetwork: 'C’est une adresse d’un autre réseau. Saisissez une adresse sur {network}.',
  problemTestnet: 'C’est une adresse de réseau de test. Saisissez une adresse du réseau principal {network}.',
  problemBadFormat:
    'Ce n’est pas une adresse sur {network}. Copiez à nouveau l’adresse depuis votre portefeuille.',
  problemBadLength:
    'L’adresse est trop courte ou trop longue. Copiez à nouveau l’adresse depuis votre portefeuille.',
  problemBadCharacter:
    'L’adresse contient un caractère qui n’en fait pas partie. Copiez à nouveau l’adresse depuis votre portefeuille.',
  problemChecksum:
    'Un caractère de l’adresse a probablement été modifié : sa somme de contrôle ne correspond pas. Copiez à nouveau l’adresse depuis votre portefeuille.',
  problemUnknownNetwork:
    'Les remboursements sur ce réseau ne peuvent pas être réclamés ici. Contactez la boutique.',
  problemMismatch: 'Les deux adresses diffèrent. Saisissez la même adresse dans les deux champs.',
  problemNotConfirmed: 'Cochez la case pour confirmer qu’il s’agit de votre adresse.',
  problemAlreadyConfirmed:
    'Une adresse est déjà confirmée pour ce remboursement ; elle ne peut pas être modifiée.',
  problemZeroAddress:
    'C’est l’adresse zéro : rien de ce qui y est envoyé ne peut jamais être utilisé. Saisissez l’adresse de votre propre portefeuille sur {network}.',
  problemTokenContract:
    'C’est l’adresse d’un contrat de jeton, pas d’un portefeuille : les {asset} envoyés là sont perdus. Saisissez l’adresse de votre propre portefeuille sur {network}.',
  problemTokenAccount:
    'C’est un compte de jetons, pas un portefeuille : les {asset} envoyés là arriveraient hors de portée de votre application de portefeuille. Saisissez l’adresse de votre portefeuille sur {network}.',
  problemExtendedKey:
    'C’est une clé publique étendue (xpub, zpub), pas une adresse : un remboursement ne peut être envoyé qu’à une adresse. Ouvrez « Recevoir » dans votre application de portefeuille et copiez l’adresse affichée.',
  problemPrivateKey:
    'C’est une clé privée : quiconque la détient peut prendre vos fonds. Ne la partagez jamais. Saisissez l’adresse de réception affichée par votre application de portefeuille.',
  problemServiceAddress:
    'C’est une adresse du service de paiement, pas votre portefeuille : un remboursement envoyé là serait perdu. Saisissez l’adresse de votre propre portefeuille sur {network}.',
  problemShopWallet:
    'C’est le portefeuille de la boutique : le remboursement retournerait à la boutique. Saisissez l’adresse de votre propre portefeuille sur {network}.',
  problemOther:
    'Cette adresse ne peut pas être utilisée. Copiez à nouveau l’adresse depuis votre portefeuille.',
};

const es: RefundMessages = {
  documentTitle: 'Reembolso de {merchant}',
  documentTitleGeneric: 'Tu reembolso',
  errorTitle: 'Error: {title}',
  refundFrom: 'Reembolso de',
  merchantFallback: 'la tienda',
  orderReference: 'Pedido {reference}',
  amountLabel: 'Tu reembolso',
  amountOnNetwork: '{amount} {asset} en {network}',
  fiatValue: 'Equivale a {amount} al tipo de cambio de tu pago',
  enterTitle: '¿A dónde debe enviar la tienda tu reembolso?',
  enterIntro: 'Introduce una dirección de tu propio monedero en {network} que pueda recibir {asset}.',
  addressLabel: 'Tu dirección en {network}',
  addressHint:
    'Debe ser una dirección en {network} que pueda recibir {asset}. Si se envía a una dirección de otra red, el reembolso se pierde.',
  addressAgainLabel: 'La misma dirección otra vez',
  addressAgainHint: 'Pégala o escríbela una vez más, para detectar un error antes de que se envíe nada.',
  deadline: 'Confirma tu dirección antes del {deadline}.',
  check: 'Continuar',
  reviewTitle: 'Comprueba tu dirección',
  reviewIntro: 'La tienda enviará {amount} {asset} en {network} a esta dirección:',
  reviewCompare: 'Compárala grupo por grupo con la dirección de tu monedero.',
  address: 'Dirección',
  network: 'Red',
  asset: 'Activo',
  memoTitle: 'Sin memo, etiqueta ni ID de pago',
  memoWarning:
    'No uses una dirección de depósito de un exchange que requiera un memo, una etiqueta o un ID de pago: la transferencia de la tienda no puede incluirlos y el reembolso podría perderse.',
  confirmLabel: 'Esta es mi dirección en {network} y puede recibir {asset}.',
  confirm: 'Confirmar dirección',
  change: 'Cambiar dirección',
  confirmedTitle: 'Dirección confirmada',
  confirmedAddress: 'Tu dirección está confirmada:',
  willSend: 'La tienda enviará {amount} {asset} en {network}. Esta página se actualiza sola.',
  refreshNow: 'Actualizar ahora',
  paidTitle: 'Reembolso enviado',
  paidDetail: 'Se enviaron {amount} {asset} en {network} a:',
  paidAt: 'Enviado el {date}.',
  viewTransaction: 'Ver la transacción',
  transaction: 'Transacción',
  cancelledTitle: 'Reembolso cancelado',
  cancelledDetail: 'La tienda canceló este reembolso. Si tienes preguntas, contacta con {merchant}.',
  expiredTitle: 'Esta solicitud de reembolso ha caducado',
  expiredDetail:
    'No se confirmó ninguna dirección antes del {deadline}. Contacta con {merchant} para recibir tu reembolso.',
  notFoundTitle: 'Reembolso no encontrado',
  notFound:
    'Este enlace de reembolso no es válido. Comprueba que abriste el enlace completo del mensaje de la tienda o contacta con la tienda.',
  badFormTitle: 'No se pudo leer el formulario',
  badForm: 'Vuelve a tu reembolso e introduce la dirección de nuevo.',
  backToRefund: 'Volver a tu reembolso',
  handledBy: 'Reembolso gestionado por Crypto Checkout',
  problemEmpty: 'Introduce tu dirección.',
  problemEmptyAgain: 'Introduce la dirección por segunda vez.',
  problemWhitespace:
    'La dirección contiene espacios o caracteres invisibles. Elimínalos o copia de nuevo la dirección desde tu monedero.',
  problemWrongNetwork: 'Esta es una dirección de otra red. Introduce una dirección en {network}.',
  problemTestnet:
    'Esta es una dirección de una red de pruebas. Introduce una dirección de la red principal {network}.',
  problemBadFormat: 'Esta no es una dirección en {network}. Copia de nuevo la dirección desde tu monedero.',
  problemBadLength:
    'La dirección es demasiado corta o demasiado larga. Copia de nuevo la dirección desde tu monedero.',
  problemBadCharacter:
    'La dirección contiene un carácter que no le corresponde. Copia de nuevo la dirección desde tu monedero.',
  problemChecksum:
    'Probablemente se cambió un carácter de la dirección: su suma de verificación no coincide. Copia de nuevo la dirección desde tu monedero.',
  problemUnknownNetwork: 'Los reembolsos en esta red no se pueden reclamar aquí. Contacta con la tienda.',
  problemMismatch: 'Las dos direcciones no coinciden. Introduce la misma dirección en ambos campos.',
  problemNotConfirmed: 'Marca la casilla para confirmar que esta es tu dirección.',
  problemAlreadyConfirmed: 'Ya hay una dirección confirmada para este reembolso; no se puede cambiar.',
  problemZeroAddress:
    'Esta es la dirección cero: lo que se envía allí no se puede usar nunca. Introduce la dirección de tu propio monedero en {network}.',
  problemTokenContract:
    'Esta es la dirección de un contrato de token, no de un monedero: los {asset} enviados allí se pierden. Introduce la dirección de tu propio monedero en {network}.',
  problemTokenAccount:
    'Esta es una cuenta de token, no un monedero: los {asset} enviados allí llegarían donde tu aplicación de monedero no los alcanza. Introduce la dirección de tu monedero en {network}.',
  problemExtendedKey:
    'Esta es una clave pública extendida (xpub, zpub), no una dirección: un reembolso solo puede enviarse a una dirección. Abre «Recibir» en tu aplicación de monedero y copia la dirección que muestra.',
  problemPrivateKey:
    'Esta es una clave privada: quien la tenga puede llevarse tus fondos. No la compartas nunca. Introduce la dirección de recepción que muestra tu aplicación de monedero.',
  problemServiceAddress:
    'Esta es una dirección del servicio de pago, no tu monedero: un reembolso enviado allí se perdería. Introduce la dirección de tu propio monedero en {network}.',
  problemShopWallet:
    'Este es el monedero de la tienda: el reembolso volvería a la tienda. Introduce la dirección de tu propio monedero en {network}.',
  problemOther: 'Esta dirección no se puede usar. Copia de nuevo la dirección desde tu monedero.',
};

/** Refund claim page texts by language. */
export const REFUND_MESSAGES: Readonly<Record<Language, RefundMessages>> = { en, de, fr, es };

/** The refund page texts for `lang`, English when it is not supported. */
export function refundMessagesFor(lang: string): RefundMessages {
  return isSupportedLanguage(lang) ? REFUND_MESSAGES[lang] : REFUND_MESSAGES.en;
}
