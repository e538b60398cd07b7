package prompts

// latinLookalike returns the lower-case ASCII letter that r is drawn
// like, or 0: letters of other scripts that look Latin (Cyrillic о,
// Greek ο, Armenian օ), Latin letters with accents, small capitals,
// superscript and subscript letters, circled, squared and parenthesized
// letters, and the Mathematical Alphanumeric Symbols (bold, italic,
// script, fraktur, double-struck, sans-serif and monospace alphabets).
// A model reads "</wоrkspace-file>" with a Cyrillic о as the tag, so the
// delimiter's escape must too. Standard library only: a small table, and
// arithmetic over the alphabets Unicode lays out in order.
func latinLookalike(r rune) rune {
	switch {
	case r >= 'A' && r <= 'Z':
		return r + 'a' - 'A'
	case r >= 'a' && r <= 'z':
		return r
	case r >= 0xC0 && r <= 0x17F:
		return fromTable(latin1Ext[r-0xC0])
	case r >= 0x1D400 && r <= 0x1D6A3: // 13 Latin alphabets of A-Z a-z
		return 'a' + (r-0x1D400)%52%26
	case r == 0x1D6A4:
		return 'i' // mathematical italic dotless i
	case r == 0x1D6A5:
		return 'j'
	case r >= 0x1D6A8 && r <= 0x1D7C9: // 5 Greek alphabets of 58
		k := (r - 0x1D6A8) % 58
		switch {
		case k < 25:
			return lookalikes[0x391+k]
		case k >= 26 && k < 51:
			return lookalikes[0x3B1+k-26]
		}
		return 0
	case r >= 0x24B6 && r <= 0x24CF: // circled capitals
		return 'a' + r - 0x24B6
	case r >= 0x24D0 && r <= 0x24E9: // circled small
		return 'a' + r - 0x24D0
	case r >= 0x249C && r <= 0x24B5: // parenthesized small
		return 'a' + r - 0x249C
	case r >= 0x1F110 && r <= 0x1F129: // parenthesized capitals
		return 'a' + r - 0x1F110
	case r >= 0x1F130 && r <= 0x1F149: // squared capitals
		return 'a' + r - 0x1F130
	case r >= 0x1F150 && r <= 0x1F169: // negative circled capitals
		return 'a' + r - 0x1F150
	case r >= 0x1F170 && r <= 0x1F189: // negative squared capitals
		return 'a' + r - 0x1F170
	case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators
		return 'a' + r - 0x1F1E6
	}
	return lookalikes[r]
}

func fromTable(b byte) rune {
	if b == '.' {
		return 0
	}
	return rune(b)
}

// latin1Ext holds the base letter of U+00C0-U+017F ('.' for none): the
// accented letters of Latin-1 and Latin Extended-A.
const latin1Ext = "" +
	"aaaaaa.ceeeeiiiidnooooo.ouuuuy.." + // U+00C0-U+00DF
	"aaaaaa.ceeeeiiiidnooooo.ouuuuy.y" + // U+00E0-U+00FF
	"aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii..jjkkk" + // U+0100-U+0138
	"llllllllllnnnnnnnnnoooooo..rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs" // U+0139-U+017F

// lookalikes are letters of other scripts, and Latin letters in other
// forms, that are drawn like a Latin letter.
var lookalikes = map[rune]rune{
	// Cyrillic
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'ь': 'b', 'Ь': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd', 'е': 'e', 'Е': 'e', 'ё': 'e', 'Ё': 'e',
	'ғ': 'f', 'һ': 'h', 'Һ': 'h', 'Н': 'h', 'н': 'h', 'і': 'i', 'І': 'i', 'ї': 'i', 'Ї': 'i', 'ӏ': 'l', 'Ӏ': 'l', 'ј': 'j', 'Ј': 'j',
	'к': 'k', 'К': 'k', 'ќ': 'k', 'Ќ': 'k', 'м': 'm', 'М': 'm', 'п': 'n', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'Ԛ': 'q',
	'г': 'r', 'ѕ': 's', 'Ѕ': 's', 'т': 't', 'Т': 't', 'џ': 'u', 'ѵ': 'v', 'Ѵ': 'v', 'ԝ': 'w', 'Ԝ': 'w', 'ш': 'w', 'Ш': 'w', 'щ': 'w',
	'х': 'x', 'Х': 'x', 'у': 'y', 'У': 'y', 'ү': 'y', 'Ү': 'y', 'ᴢ': 'z',
	// Greek
	'α': 'a', 'Α': 'a', 'β': 'b', 'Β': 'b', 'ϲ': 'c', 'Ϲ': 'c', 'ε': 'e', 'Ε': 'e', 'Η': 'h', 'η': 'n', 'ι': 'i', 'Ι': 'i', 'ϳ': 'j',
	'Ϳ': 'j', 'κ': 'k', 'Κ': 'k', 'ϰ': 'k', 'Μ': 'm', 'ν': 'v', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'σ': 'o', 'ρ': 'p', 'Ρ': 'p', 'ϱ': 'p',
	'τ': 't', 'Τ': 't', 'υ': 'u', 'Υ': 'y', 'ω': 'w', 'χ': 'x', 'Χ': 'x', 'γ': 'y', 'Ζ': 'z', 'ϝ': 'f', 'Ϝ': 'f',
	// Armenian
	'ա': 'w', 'հ': 'h', 'ո': 'n', 'ս': 'u', 'Ս': 'u', 'օ': 'o', 'Օ': 'o', 'ց': 'g', 'զ': 'q', 'ք': 'p', 'Լ': 'l', 'Ւ': 'l', 'ւ': 'l',
	'Ը': 'c', 'Յ': 'j', 'Ք': 'p', 'Կ': 'k',
	// Latin in other forms: IPA, dotless, small capitals
	'ɑ': 'a', 'ɡ': 'g', 'ı': 'i', 'ȷ': 'j', 'ɩ': 'i', 'ℓ': 'l', 'ʟ': 'l', 'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f',
	'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u',
	'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ƙ': 'k', 'ꝁ': 'k', 'ſ': 's',
	// superscript and subscript letters
	'ᵃ': 'a', 'ᵇ': 'b', 'ᶜ': 'c', 'ᵈ': 'd', 'ᵉ': 'e', 'ᶠ': 'f', 'ᵍ': 'g', 'ʰ': 'h', 'ⁱ': 'i', 'ʲ': 'j', 'ᵏ': 'k', 'ˡ': 'l', 'ᵐ': 'm',
	'ⁿ': 'n', 'ᵒ': 'o', 'ᵖ': 'p', 'ʳ': 'r', 'ˢ': 's', 'ᵗ': 't', 'ᵘ': 'u', 'ᵛ': 'v', 'ʷ': 'w', 'ˣ': 'x', 'ʸ': 'y', 'ᶻ': 'z',
	'ᴬ': 'a', 'ᴮ': 'b', 'ᴰ': 'd', 'ᴱ': 'e', 'ᴳ': 'g', 'ᴴ': 'h', 'ᴵ': 'i', 'ᴶ': 'j', 'ᴷ': 'k', 'ᴸ': 'l', 'ᴹ': 'm', 'ᴺ': 'n', 'ᴼ': 'o',
	'ᴾ': 'p', 'ᴿ': 'r', 'ᵀ': 't', 'ᵁ': 'u', 'ⱽ': 'v', 'ᵂ': 'w',
	'ₐ': 'a', 'ₑ': 'e', 'ₒ': 'o', 'ₓ': 'x', 'ₕ': 'h', 'ₖ': 'k', 'ₗ': 'l', 'ₘ': 'm', 'ₙ': 'n', 'ₚ': 'p', 'ₛ': 's', 'ₜ': 't',
	'ᵢ': 'i', 'ᵣ': 'r', 'ᵤ': 'u', 'ᵥ': 'v', 'ⱼ': 'j',
	// letterlike symbols, which fill the holes of the mathematical alphabets
	'ℎ': 'h', 'ℬ': 'b', 'ℰ': 'e', 'ℱ': 'f', 'ℋ': 'h', 'ℐ': 'i', 'ℒ': 'l', 'ℳ': 'm', 'ℛ': 'r', 'ℯ': 'e', 'ℊ': 'g', 'ℴ': 'o',
	'ℭ': 'c', 'ℌ': 'h', 'ℑ': 'i', 'ℜ': 'r', 'ℨ': 'z', 'ℂ': 'c', 'ℍ': 'h', 'ℕ': 'n', 'ℙ': 'p', 'ℚ': 'q', 'ℝ': 'r', 'ℤ': 'z',
	'K': 'k', 'Å': 'a', 'ⅰ': 'i', 'Ⅰ': 'i', 'ⅼ': 'l', 'Ⅼ': 'l', 'ⅽ': 'c', 'Ⅽ': 'c', 'ⅾ': 'd', 'Ⅾ': 'd', 'ⅿ': 'm', 'Ⅿ': 'm',
	'ⅴ': 'v', 'Ⅴ': 'v', 'ⅹ': 'x', 'Ⅹ': 'x',
}
