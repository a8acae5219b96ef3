/**
 * TARGET2 closing days, on which the ECB publishes no reference rates: Saturdays, Sundays, New
 * Year's Day, Good Friday, Easter Monday, 1 May, 25 and 26 December.
 */
export function isTargetWorkingDay(date: Date): boolean {
  const day = date.getUTCDay();
  if (day === 0 || day === 6) return false;
  const month = date.getUTCMonth() + 1;
  const dayOfMonth = date.getUTCDate();
  if ((month === 1 && dayOfMonth === 1) || (month === 5 && dayOfMonth === 1)) return false;
  if (month === 12 && (dayOfMonth === 25 || dayOfMonth === 26)) return false;
  const easter = easterSunday(date.getUTCFullYear());
  const offsetDays = Math.round((date.getTime() - easter.getTime()) / 86_400_000);
  return offsetDays !== -2 && offsetDays !== 1;
}

/** The first TARGET working day after `date` (a UTC calendar day). */
export function nextTargetWorkingDay(date: Date): Date {
  const next = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
  return isTargetWorkingDay(next) ? next : nextTargetWorkingDay(next);
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm), midnight UTC. */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}
